import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { Dialog } from '../components/dialog.js';
import { Notice } from '../components/notice.js';
import { DataTable } from '../components/data-table.js';

interface Webhook {
  readonly _id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly description: string | null;
  readonly active: boolean;
  readonly direction?: string;
}
interface Delivery {
  readonly _id: string;
  readonly type: string;
  readonly status: string;
  readonly attempts: number;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly created_at: string;
}

function CreateWebhook(props: { onCreated: (secret: string) => void }) {
  const [url, setUrl] = useState('https://');
  const [description, setDescription] = useState('');
  const [catalogue, setCatalogue] = useState<readonly string[]>([]);
  const [events, setEvents] = useState<readonly string[]>([]);
  const [error, setError] = useState('');
  useEffect(() => {
    api.get<{ items: ({ name: string } | string)[] }>('/v1/webhooks/events').then(
      ({ body }) => setCatalogue(body.items.map((item) => (typeof item === 'string' ? item : item.name))),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, []);
  async function create(event: Event) {
    event.preventDefault();
    try {
      const { body } = await api.call<Webhook & { secret: string }>('POST', '/v1/webhooks', { body: { url: url.trim(), events, ...(description ? { description } : {}) } });
      props.onCreated(body.secret);
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form onSubmit={(e) => void create(e)}>
      <Notice kind="error">{error}</Notice>
      <label for="webhook-url">URL</label>
      <input id="webhook-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <label for="webhook-events">Events</label>
      <select id="webhook-events" multiple required size={8} onChange={(e) => setEvents([...e.currentTarget.selectedOptions].map((o) => o.value))}>
        {catalogue.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <label for="webhook-description">Description</label>
      <input id="webhook-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      <button type="submit">Create</button>
    </form>
  );
}

function Deliveries(props: { webhook: Webhook }) {
  const [items, setItems] = useState<readonly Delivery[]>([]);
  const [error, setError] = useState('');
  const [message, setMessage] = useState('');
  const base = `/v1/webhooks/${encodeURIComponent(props.webhook._id)}`;
  const load = () =>
    api.get<{ items: Delivery[] }>(`${base}/deliveries?sort=-created_at&per_page=50`).then(
      ({ body }) => setItems(body.items),
      (failure: unknown) => setError(describeError(failure)),
    );
  useEffect(() => void load(), [props.webhook._id]);
  async function act(path: string, done: string) {
    setError('');
    try {
      await api.call('POST', path);
      setMessage(done);
      await load();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <>
      <Notice kind="error">{error}</Notice>
      <Notice kind="success">{message}</Notice>
      <button type="button" class="secondary" onClick={() => void act(`${base}/test`, 'Test ping queued.')}>
        Send test ping
      </button>
      <DataTable caption="Deliveries, newest first" headings={['Time', 'Event', 'Status', 'Attempts', 'Last answer', { hidden: 'Actions' }]}>
        {items.map((d) => (
          <tr key={d._id}>
            <td>{new Date(d.created_at).toLocaleString()}</td>
            <td>{d.type}</td>
            <td>{d.status}</td>
            <td>{d.attempts}</td>
            <td>{d.last_status_code ?? d.last_error ?? '—'}</td>
            <td>
              <button type="button" class="secondary" onClick={() => void act(`${base}/deliveries/${encodeURIComponent(d._id)}/retry`, 'Retry queued.')}>
                Retry
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}

/** Settings → Webhooks: subscriptions, their secret (shown once), deliveries and retries. */
export function Webhooks() {
  const [webhooks, setWebhooks] = useState<readonly Webhook[]>([]);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState('');
  const [selected, setSelected] = useState<Webhook>();
  const [error, setError] = useState('');
  const load = () =>
    api.get<{ items: Webhook[] }>('/v1/webhooks?per_page=100').then(
      ({ body }) => setWebhooks(body.items),
      (failure: unknown) => setError(describeError(failure)),
    );
  useEffect(() => void load(), []);
  return (
    <>
      <div class="page-head">
        <h1>Webhooks</h1>
        <button type="button" onClick={() => (setSecret(''), setCreating(true))}>
          New webhook
        </button>
      </div>
      <Notice kind="error">{error}</Notice>
      {secret && (
        <section aria-labelledby="secret-title" class="created">
          <h2 id="secret-title">Signing secret</h2>
          <p>Verify deliveries with this secret. It is shown only now.</p>
          <pre>
            <code>{secret}</code>
          </pre>
        </section>
      )}
      <DataTable caption="Webhooks of this tenant" headings={['URL', 'Events', 'Status', { hidden: 'Actions' }]}>
        {webhooks.map((w) => (
          <tr key={w._id}>
            <th scope="row">{w.url}</th>
            <td>{w.events.join(', ')}</td>
            <td>{w.active ? 'Active' : 'Inactive'}</td>
            <td>
              <button type="button" class="secondary" onClick={() => setSelected(w)}>
                Deliveries
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
      <Dialog title="New webhook" open={creating} onClose={() => setCreating(false)}>
        <CreateWebhook onCreated={(value) => (setSecret(value), setCreating(false), void load())} />
      </Dialog>
      <Dialog title="Deliveries" open={selected !== undefined} onClose={() => setSelected(undefined)}>
        {selected && <Deliveries webhook={selected} />}
        <button type="button" class="secondary" onClick={() => setSelected(undefined)}>
          Close
        </button>
      </Dialog>
    </>
  );
}
