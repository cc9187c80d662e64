import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { Dialog } from '../components/dialog.js';
import { Notice } from '../components/notice.js';
import { DataTable } from '../components/data-table.js';

interface AuditEntry {
  readonly _id: string;
  readonly created_at: string;
  readonly actor_type: string;
  readonly actor_id: string;
  readonly action: string;
  readonly resource: string;
  readonly record_id: string | null;
  readonly category: string;
  readonly client_ip: string | null;
  readonly old_values: Record<string, unknown> | null;
  readonly new_values: Record<string, unknown> | null;
}

interface Filters {
  resource: string;
  action: string;
  actor: string;
  from: string;
  to: string;
}

const perPage = 25;

/** The list query for the filters, in the API's query-parameter filter syntax. */
function query(filters: Filters, page: number): string {
  const params = new URLSearchParams({ page: String(page), per_page: String(perPage), sort: '-created_at' });
  if (filters.resource) params.set('resource', filters.resource);
  if (filters.action) params.set('action', filters.action);
  if (filters.actor) params.set('actor_id', filters.actor);
  if (filters.from) params.set('created_at__gte', new Date(filters.from).toISOString());
  if (filters.to) params.set('created_at__lte', new Date(filters.to).toISOString());
  return params.toString();
}

const show = (value: unknown) => (value === undefined ? '—' : JSON.stringify(value));

/** Old and new value of every field an entry touched, side by side. */
function Diff(props: { entry: AuditEntry }) {
  const keys = [...new Set([...Object.keys(props.entry.old_values ?? {}), ...Object.keys(props.entry.new_values ?? {})])].sort();
  if (keys.length === 0) return <p>No field values recorded.</p>;
  return (
    <table class="diff">
      <caption class="visually-hidden">Changed fields</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => {
          const before = props.entry.old_values?.[key];
          const after = props.entry.new_values?.[key];
          return (
            <tr key={key} class={JSON.stringify(before) === JSON.stringify(after) ? '' : 'changed'}>
              <th scope="row">{key}</th>
              <td>
                <code>{show(before)}</code>
              </td>
              <td>
                <code>{show(after)}</code>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The audit trail: filter by resource, action, actor and time; page through; open one entry's diff. */
export function AuditLog() {
  const [filters, setFilters] = useState<Filters>({ resource: '', action: '', actor: '', from: '', to: '' });
  const [applied, setApplied] = useState(filters);
  const [page, setPage] = useState(1);
  const [result, setResult] = useState<{ items: AuditEntry[]; total: number }>({ items: [], total: 0 });
  const [open, setOpen] = useState<AuditEntry>();
  const [error, setError] = useState('');

  useEffect(() => {
    setError('');
    api.get<{ items: AuditEntry[]; total: number }>(`/v1/audit-logs?${query(applied, page)}`).then(
      ({ body }) => setResult(body),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, [applied, page]);

  const pages = Math.max(1, Math.ceil(result.total / perPage));
  const bind = (key: keyof Filters) => ({ id: `filter-${key}`, value: filters[key], onInput: (e: Event) => setFilters({ ...filters, [key]: (e.currentTarget as HTMLInputElement).value }) });
  const labelled = (key: keyof Filters, label: string, input: preact.JSX.Element) => (
    <div class="filter">
      <label for={`filter-${key}`}>{label}</label>
      {input}
    </div>
  );
  return (
    <>
      <h1>Audit log</h1>
      <form class="filters" onSubmit={(e) => (e.preventDefault(), setPage(1), setApplied(filters))}>
        {labelled('resource', 'Resource', <input {...bind('resource')} />)}
        {labelled('action', 'Action', <input {...bind('action')} />)}
        {labelled('actor', 'Actor ID', <input {...bind('actor')} />)}
        {labelled('from', 'From', <input type="datetime-local" {...bind('from')} />)}
        {labelled('to', 'To', <input type="datetime-local" {...bind('to')} />)}
        <button type="submit">Filter</button>
      </form>
      <Notice kind="error">{error}</Notice>
      <p role="status">{result.total} entries</p>
      <DataTable caption="Audit entries, newest first" headings={['Time', 'Actor', 'Action', 'Resource', 'Record', { hidden: 'Details' }]}>
        {result.items.map((entry) => (
          <tr key={entry._id}>
            <td>{new Date(entry.created_at).toLocaleString()}</td>
            <td>
              {entry.actor_type} <code>{entry.actor_id.slice(0, 13)}</code>
            </td>
            <td>{entry.action}</td>
            <td>{entry.resource}</td>
            <td>
              <code>{entry.record_id?.slice(0, 13) ?? '—'}</code>
            </td>
            <td>
              <button type="button" class="secondary" onClick={() => setOpen(entry)}>
                Changes
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
      <nav class="pager" aria-label="Pages">
        <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <span>
          Page {page} of {pages}
        </span>
        <button type="button" class="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
          Next page
        </button>
      </nav>
      <Dialog title="Changes" open={open !== undefined} onClose={() => setOpen(undefined)}>
        {open && (
          <>
            <p>
              {open.action} of {open.resource} <code>{open.record_id}</code> by {open.actor_type} <code>{open.actor_id}</code>, {new Date(open.created_at).toLocaleString()}.
            </p>
            <Diff entry={open} />
            <button type="button" class="secondary" onClick={() => setOpen(undefined)}>
              Close
            </button>
          </>
        )}
      </Dialog>
    </>
  );
}
