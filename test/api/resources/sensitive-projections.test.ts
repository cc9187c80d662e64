import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

type Json = Record<string, unknown>;

const auditCaps = ['audit-logs:list', 'audit-logs:read', 'audit-logs:export'];
const fieldCaps = ['email', 'phone', 'date_of_birth'].flatMap((field) => [`users:read:${field}`, `users:write:${field}`]);
const webhookCaps = ['webhooks:create', 'webhooks:read', 'webhooks:list'];
const email = 'ada.lovelace@example.test';
const newEmail = 'ada.king@example.test';
const phone = '+441234567890';
const newPhone = '+449876543210';
/** Every sensitive value the records below ever held: none may reach a reader without the capability. */
const secrets = [email, newEmail, phone, newPhone, '1815-12-10', 'ada.', '+44'];

/** A real HTTP receiver that keeps every body it is posted. */
async function receiver() {
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      bodies.push(body);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function expectNoSecret(text: string) {
  for (const secret of secrets) expect(text, `"${secret}" leaked`).not.toContain(secret);
}

describe.each(dialects)('sensitive fields stay hidden in every projection of a record on %s', (dialect) => {
  let h: Harness;
  let rx: Awaited<ReturnType<typeof receiver>>;
  let admin: string;
  /** `users:read`, `users:export` and the audit trail, no field capability (the client). */
  let exporter: string;
  /** The audit trail only. */
  let auditor: string;
  /** The audit trail and `users:read:email`, not phone. */
  let emailReader: string;
  let userId: string;
  let deletedId: string;

  const request = async (method: string, url: string, token: string, body?: unknown) => {
    const res = await h.request({ method, url, token, ...(body === undefined ? {} : { body }) });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res;
  };
  const auditOf = async (recordId: string, token: string) => (await request('GET', `/v1/audit-logs/?record_id=${recordId}&sort=created_at`, token)).json().items as Json[];

  beforeAll(async () => {
    rx = await receiver();
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', WEBHOOK_RETRY_SCHEDULE: '0' } });
    const tenant = await h.tenant('T');
    admin = await h.bearer(tenant, [...crud('users'), ...fieldCaps, ...auditCaps, ...webhookCaps, 'users:export']);
    exporter = await h.bearer(tenant, ['users:read', 'users:list', 'users:export', ...auditCaps]);
    auditor = await h.bearer(tenant, auditCaps);
    emailReader = await h.bearer(tenant, [...auditCaps, 'users:read:email']);
    await request('POST', '/v1/webhooks', admin, { url: rx.url, events: ['users.created', 'users.updated', 'users.deleted'] });
    const created = await request('POST', '/v1/users', admin, { email, phone, first_name: 'Ada', date_of_birth: '1815-12-10' });
    userId = String(created.json()._id);
    const current = await request('GET', `/v1/users/${userId}`, admin);
    const updated = await h.request({
      method: 'PATCH',
      url: `/v1/users/${userId}`,
      token: admin,
      headers: { 'if-match': String(current.headers.etag) },
      body: { email: newEmail, phone: newPhone, last_name: 'King' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const doomed = await request('POST', '/v1/users', admin, { email: 'ada.doomed@example.test', phone: '+441111111111' });
    deletedId = String(doomed.json()._id);
    const removed = await h.request({ method: 'DELETE', url: `/v1/users/${deletedId}`, token: admin, headers: { 'if-match': String(doomed.headers.etag) } });
    expect(removed.statusCode, removed.body).toBe(204);
    await h.app.dispatcher.runOnce();
  });
  afterAll(async () => {
    await h.close();
    await rx.close();
  });

  it('shows the values to a reader holding the field capabilities (the trail keeps them)', async () => {
    const entries = await auditOf(userId, admin);
    expect(entries.map((e) => e.action)).toEqual(['create', 'update']);
    expect(entries[0]?.new_values).toMatchObject({ email, phone, first_name: 'Ada' });
    expect(entries[1]?.old_values).toMatchObject({ email, phone });
    expect(entries[1]?.new_values).toMatchObject({ email: newEmail, phone: newPhone, last_name: 'King' });
  });

  it('subject export: neither the user nor the audit entries show email or phone without users:read:email/phone', async () => {
    const res = await request('GET', `/v1/users/${userId}/export`, exporter);
    const document = res.json() as { user: Json; audit: Json[] };
    expect(document.user).toMatchObject({ _id: userId, first_name: 'Ada', last_name: 'King' });
    expect(document.user).not.toHaveProperty('email');
    const updates = document.audit.filter((entry) => entry.record_id === userId);
    expect(updates.map((e) => e.action)).toEqual(['create', 'update']);
    expect(updates[0]?.new_values).toMatchObject({ first_name: 'Ada' });
    expect(updates[1]?.new_values).toEqual({ last_name: 'King' });
    for (const entry of updates) for (const values of [entry.old_values, entry.new_values]) expect(Object.keys((values ?? {}) as Json)).not.toEqual(expect.arrayContaining(['email']));
    expectNoSecret(res.body);
  });

  it('audit list, read and export (NDJSON and CSV) hide them from a client with audit-logs capabilities only', async () => {
    const listed = await auditOf(userId, auditor);
    expect(listed).toHaveLength(2);
    expect(listed[0]?.new_values).toEqual(expect.objectContaining({ first_name: 'Ada' }));
    expect(listed[1]?.old_values).not.toHaveProperty('email');
    expect(listed[1]?.new_values).toEqual({ last_name: 'King' });
    expectNoSecret(JSON.stringify(listed));
    for (const entry of listed) expectNoSecret((await request('GET', `/v1/audit-logs/${String(entry._id)}`, auditor)).body);
    // The delete's full snapshot too.
    const deleted = await auditOf(deletedId, auditor);
    expect(deleted.map((e) => e.action)).toEqual(['create', 'delete']);
    expect(deleted[1]?.old_values).toEqual(expect.objectContaining({ _id: deletedId }));
    expect(deleted[1]?.old_values).not.toHaveProperty('email');
    expectNoSecret(JSON.stringify(deleted));
    const ndjson = await request('GET', `/v1/audit-logs/export?resource=users`, auditor);
    expect(ndjson.body.trim().split('\n').length).toBeGreaterThanOrEqual(4);
    expectNoSecret(ndjson.body);
    const csv = await request('GET', `/v1/audit-logs/export?resource=users&format=csv`, auditor);
    expect(csv.body).toContain('Ada');
    expectNoSecret(csv.body);
  });

  it('each field needs its own capability: users:read:email shows the address, not the phone', async () => {
    const [create, update] = await auditOf(userId, emailReader);
    expect(create?.new_values).toMatchObject({ email });
    expect(create?.new_values).not.toHaveProperty('phone');
    expect(update?.old_values).toMatchObject({ email });
    expect(update?.old_values).not.toHaveProperty('phone');
    expect(update?.new_values).toEqual({ email: newEmail, last_name: 'King' });
    const ndjson = await request('GET', `/v1/audit-logs/export?record_id=${userId}`, emailReader);
    expect(ndjson.body).toContain(newEmail);
    expect(ndjson.body).not.toContain(newPhone);
  });

  it('webhook payloads leave every sensitive field out (a webhook has no capabilities); the deliveries list holds no record data', async () => {
    const payloads = rx.bodies.map((body) => JSON.parse(body) as { type: string; data: Json });
    expect(payloads.map((p) => p.type).sort()).toEqual(['users.created', 'users.created', 'users.deleted', 'users.updated']);
    for (const { data } of payloads) {
      expect(data).toHaveProperty('_id');
      for (const field of ['email', 'phone', 'date_of_birth']) expect(data).not.toHaveProperty(field);
    }
    expect(payloads.find((p) => p.type === 'users.updated')?.data).toMatchObject({ _id: userId, first_name: 'Ada', last_name: 'King' });
    expectNoSecret(rx.bodies.join('\n'));
    // What is stored for retries is what was sent.
    const stored = await h.database.db.selectFrom('webhook_deliveries').select('payload').execute();
    expect(stored).toHaveLength(4);
    expectNoSecret(stored.map((row) => row.payload).join('\n'));
    const hooks = (await request('GET', '/v1/webhooks', admin)).json().items as Json[];
    const deliveries = await request('GET', `/v1/webhooks/${String(hooks[0]?._id)}/deliveries`, admin);
    expect((deliveries.json().items as Json[]).length).toBe(4);
    expectNoSecret(deliveries.body);
  });

  it('records events without sensitive fields: the outbox holds what webhooks send (docs/gdpr.md)', async () => {
    const events = await h.database.db.selectFrom('outbox_events').select(['type', 'record_id', 'data']).where('resource', '=', 'users').orderBy('_id').execute();
    expect(events.map((e) => e.type)).toEqual(['users.created', 'users.updated', 'users.created', 'users.deleted']);
    for (const event of events) {
      const data = h.database.dialect.fromDb('object', event.data) as Json;
      expect(data).toMatchObject({ _id: event.record_id });
      for (const field of ['email', 'phone', 'date_of_birth']) expect(data, event.type).not.toHaveProperty(field);
    }
    expect(h.database.dialect.fromDb('object', events[1]?.data)).toMatchObject({ first_name: 'Ada', last_name: 'King' });
    expectNoSecret(JSON.stringify(events));
  });
});
