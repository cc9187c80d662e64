import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, describeError, etagOf } from '../api.js';
import { Dialog } from '../components/dialog.js';
import { downloadUrl, generateKeyPair } from '../components/key-pair.js';
import { Notice } from '../components/notice.js';
import { session } from '../session.js';
import { DataTable } from '../components/data-table.js';

interface ClientKey {
  readonly kid: string;
  readonly alg: string;
  readonly created_at: string;
  readonly active_until: string | null;
}
interface ApiClient {
  readonly _id: string;
  readonly client_id: string;
  readonly name: string;
  readonly level: string;
  readonly capabilities: readonly string[];
  readonly disabled: boolean;
  readonly keys: readonly ClientKey[];
}
interface Capability {
  readonly name: string;
  readonly resource: string;
  readonly description: string;
}

/** Public key input: paste a PEM, or generate a pair here and download the private half. */
function PublicKeyInput(props: { id: string; value: string; onChange: (pem: string) => void; fileName: string }) {
  const [download, setDownload] = useState<string>();
  const [error, setError] = useState('');
  useEffect(() => () => (download ? URL.revokeObjectURL(download) : undefined), [download]);
  async function generate() {
    try {
      const pair = await generateKeyPair();
      props.onChange(pair.publicPem);
      setDownload(downloadUrl(pair.privatePem));
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <>
      <label for={props.id}>Public key</label>
      <textarea id={props.id} rows={5} required placeholder="-----BEGIN PUBLIC KEY-----" value={props.value} onInput={(e) => props.onChange(e.currentTarget.value)} />
      <div class="row">
        <button type="button" class="secondary" onClick={() => void generate()}>
          Generate key pair in browser
        </button>
        {download && (
          <a class="button" href={download} download={props.fileName}>
            Download private key
          </a>
        )}
      </div>
      {download && <Notice kind="info">The private key never leaves this browser: download it now, it is not shown again.</Notice>}
      <Notice kind="error">{error}</Notice>
    </>
  );
}

/**
 * Capabilities the administrator holds, grouped by resource (one option group each): a
 * client never gets more than its creator, and the API refuses it anyway.
 */
function CapabilityPicker(props: { all: readonly Capability[]; chosen: ReadonlySet<string>; onChange: (chosen: ReadonlySet<string>) => void }) {
  const held = session.get()?.capabilities ?? new Set<string>();
  const groups = new Map<string, Capability[]>();
  for (const capability of props.all.filter((c) => held.has(c.name))) groups.set(capability.resource, [...(groups.get(capability.resource) ?? []), capability]);
  return (
    <>
      <label for="client-capabilities">Capabilities</label>
      <select
        id="client-capabilities"
        multiple
        required
        size={12}
        aria-describedby="client-capabilities-help"
        onChange={(e) => props.onChange(new Set([...e.currentTarget.selectedOptions].map((o) => o.value)))}
      >
        {[...groups].map(([resource, list]) => (
          <optgroup key={resource} label={resource}>
            {list.map((c) => (
              <option key={c.name} value={c.name} selected={props.chosen.has(c.name)} title={c.description}>
                {c.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      <p id="client-capabilities-help" class="help">
        Only capabilities you hold yourself are offered. Hold Ctrl (⌘ on a Mac) to choose several.
      </p>
    </>
  );
}

function CreateClient(props: { onCreated: (client: ApiClient) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [all, setAll] = useState<readonly Capability[]>([]);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [publicKey, setPublicKey] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    api.get<{ items: Capability[] }>('/v1/capabilities').then(
      ({ body }) => setAll(body.items),
      (failure: unknown) => setError(describeError(failure)),
    );
  }, []);
  async function create(event: Event) {
    event.preventDefault();
    setError('');
    try {
      const { body } = await api.call<ApiClient>('POST', '/v1/api-clients', { body: { name: name.trim(), capabilities: [...chosen], public_key: publicKey.trim() } });
      props.onCreated(body);
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form onSubmit={(e) => void create(e)}>
      <Notice kind="error">{error}</Notice>
      <label for="client-name">Name</label>
      <input id="client-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <CapabilityPicker all={all} chosen={chosen} onChange={setChosen} />
      <PublicKeyInput id="client-public-key" value={publicKey} onChange={setPublicKey} fileName={`${name.trim() || 'client'}.key`} />
      <div class="row">
        <button type="submit">Create</button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** What to run next: the token request for the new client. */
function Created(props: { client: ApiClient }) {
  const kid = props.client.keys[props.client.keys.length - 1]?.kid ?? '';
  const example = `npm run --silent cli -- token --url ${location.origin} --client ${props.client.client_id} --key ${props.client.name}.key --kid ${kid}`;
  const [copied, setCopied] = useState(false);
  return (
    <section aria-labelledby="created-title" class="created">
      <h2 id="created-title">Client {props.client.name} created</h2>
      <p>
        Client ID <code>{props.client.client_id}</code>, key <code>{kid}</code>. Request a token with a <code>private_key_jwt</code> assertion signed by its private key (<code>iss</code> ={' '}
        <code>sub</code> = the client ID, <code>aud</code> = <code>{location.origin}/v1/auth/token</code>), for example with the CLI:
      </p>
      <pre>
        <code>{example}</code>
      </pre>
      <button type="button" class="secondary" onClick={() => void navigator.clipboard.writeText(example).then(() => setCopied(true))}>
        Copy
      </button>
      {copied && <Notice kind="success">Copied.</Notice>}
    </section>
  );
}

function RotateKey(props: { client: ApiClient; onDone: () => void }) {
  const [publicKey, setPublicKey] = useState('');
  const [overlap, setOverlap] = useState('7');
  const [error, setError] = useState('');
  async function rotate(event: Event) {
    event.preventDefault();
    try {
      await api.call('POST', `/v1/api-clients/${encodeURIComponent(props.client._id)}/keys`, { body: { public_key: publicKey.trim(), overlap_days: Number(overlap) } });
      props.onDone();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  return (
    <form onSubmit={(e) => void rotate(e)}>
      <Notice kind="error">{error}</Notice>
      <PublicKeyInput id="rotate-public-key" value={publicKey} onChange={setPublicKey} fileName={`${props.client.name}-new.key`} />
      <label for="overlap">Days the current keys stay valid</label>
      <input id="overlap" type="number" min={0} max={365} required value={overlap} onInput={(e) => setOverlap(e.currentTarget.value)} />
      <button type="submit">Add key</button>
    </form>
  );
}

/** Settings → API Clients: list, create, rotate keys, disable or enable, delete. */
export function ApiClients() {
  const [clients, setClients] = useState<readonly ApiClient[]>([]);
  const [error, setError] = useState('');
  const [message, setMessage] = useState('');
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'rotate' | 'delete'; client: ApiClient } | undefined>();
  const [created, setCreated] = useState<ApiClient>();

  async function load() {
    try {
      setClients((await api.get<{ items: ApiClient[] }>('/v1/api-clients?per_page=100&sort=name')).body.items);
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  useEffect(() => void load(), []);

  async function act(what: () => Promise<unknown>, done: string) {
    setError('');
    setMessage('');
    try {
      await what();
      setMessage(done);
      setDialog(undefined);
      await load();
    } catch (failure) {
      setError(describeError(failure));
    }
  }
  const setDisabled = (client: ApiClient, disabled: boolean) =>
    act(
      async () => api.call('PATCH', `/v1/api-clients/${encodeURIComponent(client._id)}`, { body: { disabled }, ifMatch: await etagOf(`/v1/api-clients/${encodeURIComponent(client._id)}`) }),
      `${client.name} ${disabled ? 'disabled' : 'enabled'}.`,
    );
  const remove = (client: ApiClient) =>
    act(async () => api.call('DELETE', `/v1/api-clients/${encodeURIComponent(client._id)}`, { ifMatch: await etagOf(`/v1/api-clients/${encodeURIComponent(client._id)}`) }), `${client.name} deleted.`);
  const sorted = useMemo(() => [...clients], [clients]);

  return (
    <>
      <div class="page-head">
        <h1>API Clients</h1>
        <button type="button" onClick={() => (setCreated(undefined), setDialog({ kind: 'create' }))}>
          New API client
        </button>
      </div>
      <Notice kind="error">{error}</Notice>
      <Notice kind="success">{message}</Notice>
      {created && <Created client={created} />}
      <DataTable caption="API clients of this tenant" headings={['Name', 'Client ID', 'Level', 'Capabilities', 'Keys', 'Status', 'Actions']}>
        {sorted.map((client) => (
          <tr key={client._id}>
            <th scope="row">{client.name}</th>
            <td>
              <code>{client.client_id}</code>
            </td>
            <td>{client.level}</td>
            <td>
              <details>
                <summary>{client.capabilities.length}</summary>
                <ul class="plain">
                  {client.capabilities.map((c) => (
                    <li key={c}>{c}</li>
                  ))}
                </ul>
              </details>
            </td>
            <td>
              <ul class="plain">
                {client.keys.map((k) => (
                  <li key={k.kid}>
                    <code>{k.kid.slice(0, 12)}</code> {k.alg}
                    {k.active_until ? `, until ${new Date(k.active_until).toLocaleString()}` : ''}
                  </li>
                ))}
              </ul>
            </td>
            <td>{client.disabled ? 'Disabled' : 'Active'}</td>
            <td class="actions">
              <button type="button" class="secondary" onClick={() => setDialog({ kind: 'rotate', client })}>
                Rotate key
              </button>
              {client.disabled ? (
                <button type="button" class="secondary" onClick={() => void setDisabled(client, false)}>
                  Enable
                </button>
              ) : (
                <button type="button" class="secondary" onClick={() => void setDisabled(client, true)}>
                  Disable
                </button>
              )}
              <button type="button" class="danger" onClick={() => setDialog({ kind: 'delete', client })}>
                Delete
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
      <Dialog title="New API client" open={dialog?.kind === 'create'} onClose={() => setDialog(undefined)}>
        <CreateClient onCancel={() => setDialog(undefined)} onCreated={(client) => (setCreated(client), setDialog(undefined), void load())} />
      </Dialog>
      <Dialog title="Rotate key" open={dialog?.kind === 'rotate'} onClose={() => setDialog(undefined)}>
        {dialog?.kind === 'rotate' && <RotateKey client={dialog.client} onDone={() => void act(async () => undefined, `New key added to ${dialog.client.name}.`)} />}
      </Dialog>
      <Dialog title="Delete API client" open={dialog?.kind === 'delete'} onClose={() => setDialog(undefined)}>
        {dialog?.kind === 'delete' && (
          <>
            <p>Delete {dialog.client.name}? Its tokens stop working at once. This cannot be undone.</p>
            <div class="row">
              <button type="button" class="danger" onClick={() => void remove(dialog.client)}>
                Delete permanently
              </button>
              <button type="button" class="secondary" onClick={() => setDialog(undefined)}>
                Cancel
              </button>
            </div>
          </>
        )}
      </Dialog>
    </>
  );
}
