import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, describeError, etagOf } from '../api.js';
import { count, eventSpan, importName, importStatusText, shortUrl, syncOutcome } from '../calendars.js';
import { localTime } from '../days.js';
import type { CalendarImport, ListPage, Product } from '../records.js';
import { holds } from '../selling.js';
import { AddImport } from './add-import.js';
import { CalendarFeedUrl } from './calendar-feed.js';
import { DataTable } from './data-table.js';
import { Dialog } from './dialog.js';
import { Notice } from './notice.js';

/** A short URL that may wrap after its slashes only (never inside the host or a file name). */
function breakable(url: string): preact.JSX.Element[] {
  return url.split(/(?<=\/)/).map((part, index) => (
    <Fragment key={index}>
      {index > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}

/** When an import last synced, and its last success when that was earlier (a failing feed). */
function syncedText(entry: CalendarImport): preact.JSX.Element {
  const last = entry.last_synced_at ? localTime(entry.last_synced_at) : 'Never';
  const success = entry.last_success_at === entry.last_synced_at ? undefined : entry.last_success_at ? localTime(entry.last_success_at) : 'never';
  return (
    <>
      {last}
      {success && <span class="line-note">Last success: {success}</span>}
    </>
  );
}

/**
 * A product's calendars (docs/calendars.md): its secret feed URL for other channels (with
 * `products:update` only: the URL is a credential), and the channels' feeds it imports as
 * blocks, with their health (status, last sync, last error, events, skipped and the
 * conflicts, events that did not fit), **Sync now**, **Remove** (a confirmation, then
 * `DELETE` with `If-Match`: the import's blocks are cancelled) and **Add import**. Copy, sync
 * and change results go to one polite live region; refusals show the API's `detail`.
 * `onChanged` tells the page the imports changed (its bookings and occupancy too).
 */
export function ProductCalendars(props: { product: Product; onChanged: (imports: readonly CalendarImport[]) => void }) {
  const { product } = props;
  const [page, setPage] = useState<ListPage<CalendarImport>>();
  const [error, setError] = useState('');
  const [status, setStatus] = useState<{ text: string; kind: 'success' | 'info' | 'warning' }>({ text: '', kind: 'success' });
  /** Puts a result in the live region; a sync that failed reads as a warning, progress as plain. */
  const say = (text: string, kind: 'success' | 'info' | 'warning' = 'success') => setStatus({ text, kind });
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<CalendarImport>();
  const [busy, setBusy] = useState<string>();
  const importsHeading = useRef<HTMLHeadingElement>(null);
  const collection = `/v1/products/${encodeURIComponent(product._id)}/calendar-imports`;
  const editable = holds('products:update');

  async function load(): Promise<void> {
    try {
      const { body } = await api.get<ListPage<CalendarImport>>(`${collection}?per_page=100`);
      setPage(body);
      props.onChanged(body.items);
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  useEffect(() => {
    setError('');
    say('');
    void load();
  }, [product._id]);

  /** `POST …/sync`: the answer is the import after the sync, failed or not. */
  async function sync(entry: CalendarImport) {
    if (busy) return;
    setError('');
    say(`Syncing ${importName(entry)}…`, 'info');
    setBusy(entry._id);
    try {
      const { body } = await api.call<CalendarImport>('POST', `${collection}/${encodeURIComponent(entry._id)}/sync`);
      say(syncOutcome(body), body.status === 'failing' ? 'warning' : 'success');
    } catch (failure) {
      say('');
      setError(describeError(failure));
    }
    setBusy(undefined);
    await load();
  }

  /** `DELETE` with the import's current ETag: its blocks are cancelled in the same transaction. */
  async function remove(entry: CalendarImport) {
    if (busy) return;
    setError('');
    say('');
    setBusy(entry._id);
    const path = `${collection}/${encodeURIComponent(entry._id)}`;
    try {
      await api.call('DELETE', path, { ifMatch: await etagOf(path) });
      say(`${importName(entry)} removed: its blocks are cancelled and their units are free.`);
    } catch (failure) {
      setError(describeError(failure));
    }
    setRemoving(undefined);
    setBusy(undefined);
    await load();
    // The row (and its Remove button) is gone: focus goes to the table's heading.
    importsHeading.current?.focus();
  }

  const items = page?.items ?? [];
  return (
    <section aria-labelledby="calendars-title">
      <h3 id="calendars-title">Calendars</h3>
      <Notice kind="error">{error}</Notice>
      {/* Always in the page, so assistive technology announces each new result in it. */}
      <p id="calendar-status" role="status" class={status.text ? `notice notice-${status.kind}` : 'visually-hidden'}>
        {status.text}
      </p>
      {editable && <CalendarFeedUrl product={product} announce={say} fail={setError} />}

      <div class="page-head">
        <h4 id="calendar-imports-title" tabIndex={-1} ref={importsHeading}>
          Imports
        </h4>
        {editable && (
          <button type="button" class="secondary" onClick={() => (say(''), setAdding(true))}>
            Add import
          </button>
        )}
      </div>
      <p class="help">
        Other channels' calendars: each of their events blocks units here (bookings show it as Calendar and its name). An event that does not fit the free units is a conflict and is not applied.
      </p>
      <div class="imports">
        <DataTable
          caption={`Calendar imports of ${product.name}`}
          headings={['Name', 'URL', 'Units', 'Status', 'Last synced', 'Last error', 'Events', 'Skipped', 'Conflicts', ...(editable ? [{ hidden: 'Actions' }] : [])]}
        >
          {items.map((entry) => {
            const name = importName(entry);
            const conflicts = entry.conflicts ?? [];
            return (
              <tr key={entry._id}>
                <th scope="row">{name}</th>
                <td>
                  <code class="url" title={entry.url}>
                    {breakable(shortUrl(entry.url))}
                  </code>
                </td>
                <td>{entry.units}</td>
                <td>
                  <span class={`badge badge-${entry.status}`}>{importStatusText[entry.status] ?? entry.status}</span>
                </td>
                <td>{syncedText(entry)}</td>
                <td class="error-text">{entry.last_error ?? '—'}</td>
                <td>{entry.events}</td>
                <td>{entry.skipped}</td>
                <td>
                  {conflicts.length === 0 ? (
                    '0'
                  ) : (
                    <details>
                      <summary>
                        {count(conflicts.length, 'conflict')}
                        <span class="visually-hidden"> of {name}</span>
                      </summary>
                      <ul class="plain conflicts">
                        {conflicts.map((conflict) => (
                          <li key={`${conflict.external_uid} ${conflict.start}`}>
                            {eventSpan(conflict.start, conflict.end, product.time_zone)}
                            <span class="line-note">
                              {conflict.available} of {entry.units} unit{entry.units === 1 ? '' : 's'} free; event <code>{conflict.external_uid}</code>
                            </span>
                          </li>
                        ))}
                      </ul>
                    </details>
                  )}
                </td>
                {editable && (
                  <td class="actions">
                    <button type="button" class="secondary" aria-disabled={busy === entry._id ? 'true' : undefined} onClick={() => void sync(entry)}>
                      Sync now<span class="visually-hidden"> {name}</span>
                    </button>
                    <button type="button" class="danger" onClick={() => (say(''), setRemoving(entry))}>
                      Remove<span class="visually-hidden"> {name}</span>
                    </button>
                  </td>
                )}
              </tr>
            );
          })}
        </DataTable>
      </div>
      {page && items.length === 0 && <p>No calendar imports.</p>}
      {page && page.total > items.length && (
        <p class="help">
          Showing the first {items.length} of {page.total} imports.
        </p>
      )}

      <Dialog title="New calendar import" open={adding} onClose={() => setAdding(false)}>
        <AddImport
          product={product}
          onCancel={() => setAdding(false)}
          onCreated={(created) => {
            setAdding(false);
            say(`Import added. ${syncOutcome(created)}`, created.status === 'failing' ? 'warning' : 'success');
            void load();
          }}
        />
      </Dialog>
      <Dialog title="Remove calendar import" open={removing !== undefined} onClose={() => setRemoving(undefined)}>
        {removing && (
          <>
            <p>
              Stop importing {importName(removing)} (<code>{shortUrl(removing.url)}</code>)? Its {count(removing.events, 'block')} {removing.events === 1 ? 'is' : 'are'} cancelled at once and the
              units become free again. Adding the calendar again imports its events anew.
            </p>
            <div class="row">
              <button type="button" class="danger" aria-disabled={busy ? 'true' : undefined} onClick={() => void remove(removing)}>
                Remove import
              </button>
              <button type="button" class="secondary" onClick={() => setRemoving(undefined)}>
                Cancel
              </button>
            </div>
          </>
        )}
      </Dialog>
    </section>
  );
}
