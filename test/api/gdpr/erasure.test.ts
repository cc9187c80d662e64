import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../../src/registry/index.js';
import { installAuditFailure } from '../../support/audit-failure.js';
import type { AuditFailure } from '../../support/audit-failure.js';
import { dialects } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const capabilities = [
  ...['users', 'bookings', 'orders', 'subscriptions', 'legal-holds'].flatMap(crud),
  'consents:list',
  'consents:read',
  'consents:create',
  'products:create',
  'webhooks:create',
  'webhooks:list',
  'users:erase',
  'users:export',
  'audit-logs:list',
  'audit-logs:read',
  'audit-logs:export',
  ...['email', 'phone', 'date_of_birth'].flatMap((f) => [`users:read:${f}`, `users:write:${f}`]),
];

/** Personal values of the subject: none may survive erasure anywhere. */
const personal = {
  email: 'erin.quackenbush-4711@example.com',
  phone: '+4915112345678',
  firstName: 'Erinyes',
  renamed: 'Erinyes-Marie',
  lastName: 'Quackenbush',
  birth: '1980-02-03',
  notes: 'Allergic to peanuts, ask for Quackenbush',
  deletedNotes: 'Cancelled: Quackenbush room 12',
  source: 'signup form 203.0.113.77',
};
const values = Object.values(personal);
const timeRange = { start_time: '2030-01-01T10:00:00.000Z', end_time: '2030-01-02T10:00:00.000Z' };

function leaks(text: string): string[] {
  return values.filter((v) => text.includes(v));
}

// One story on one user: the steps before the erasure, the erasure, then checks of what it left
// behind. Each step needs the ones before it, so the steps keep their order under
// `--sequence.shuffle` (files and other suites still shuffle).
describe('erasure, step by step', { shuffle: false }, () => {
  describe.each(dialects)('erasure by depersonalisation on %s', (dialect) => {
    let h: Harness;
    let token = '';
    let failure: AuditFailure;
    const ids = { user: '', other: '', product: '', booking: '', deletedBooking: '', order: '', subscription: '', consents: [] as string[] };
    const userBody = {
      email: personal.email,
      phone: personal.phone,
      first_name: personal.firstName,
      last_name: personal.lastName,
      date_of_birth: personal.birth,
      external_id: 'crm-1',
    };
    const bookingBody = () => ({ product_id: ids.product, user_id: ids.user, notes: personal.notes, ...timeRange });

    /** With `key`, sent as an `Idempotency-Key`: its answer is stored for replays. */
    async function post(resource: string, body: unknown, key?: string): Promise<Record<string, unknown>> {
      const res = await h.request({ method: 'POST', url: `/v1/${resource}`, token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as Record<string, unknown>;
    }
    async function get(url: string) {
      return h.request({ method: 'GET', url, token });
    }

    // SQLite in a file, as the service runs it, so the files can be searched for the values.
    const directory = mkdtempSync(join(tmpdir(), 'booking-erasure-'));
    const sqliteFile = join(directory, 'booking.sqlite');
    /** The values found in the bytes of the SQLite database and its write-ahead log. */
    const leaksOnDisk = () => leaks([sqliteFile, `${sqliteFile}-wal`].map((file) => (existsSync(file) ? readFileSync(file).toString('latin1') : '')).join('\n'));

    beforeAll(async () => {
      h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' }, database: { sqliteFile } });
      failure = await installAuditFailure(h.database);
      const tenant = await h.tenant('Hotel');
      token = await h.bearer(tenant, capabilities);
      // A subscriber to every event that never answers: its deliveries wait for their retry, bodies stored.
      const events = ((await get('/v1/webhooks/events')).json() as { items: string[] }).items.filter((name) => name !== 'ping');
      await post('webhooks', { url: `http://127.0.0.1:${await freePort()}/gone`, events });
      const user = await post('users', userBody, 'create-user');
      ids.user = String(user._id);
      const renamed = await h.request({
        method: 'PATCH',
        url: `/v1/users/${ids.user}`,
        token,
        body: { first_name: personal.renamed },
        headers: { 'if-match': String((await get(`/v1/users/${ids.user}`)).headers.etag) },
      });
      expect(renamed.statusCode).toBe(200);
      ids.other = String((await post('users', { email: 'other@example.com', first_name: 'Otto' }))._id);
      ids.product = String((await post('products', { name: 'Room', address: 'a', city: 'c', zip_code: '1', total_items: 3 }))._id);
      ids.booking = String((await post('bookings', bookingBody(), 'create-booking'))._id);
      const doomed = await post('bookings', { product_id: ids.product, user_id: ids.user, notes: personal.deletedNotes, ...timeRange });
      ids.deletedBooking = String(doomed._id);
      const del = await h.request({
        method: 'DELETE',
        url: `/v1/bookings/${ids.deletedBooking}`,
        token,
        headers: { 'if-match': String((await get(`/v1/bookings/${ids.deletedBooking}`)).headers.etag) },
      });
      expect(del.statusCode).toBe(204);
      await post('bookings', { product_id: ids.product, user_id: ids.other, notes: 'Otto likes tea', ...timeRange });
      ids.order = String((await post('orders', { product_id: ids.product, user_id: ids.user, total_amount: 120.5, ...timeRange }))._id);
      ids.subscription = String((await post('subscriptions', { product_id: ids.product, user_id: ids.user, plan: 'gold' }))._id);
      ids.consents.push(String((await post('consents', { user_id: ids.user, purpose: 'marketing_email', granted: true, source: personal.source, policy_version: '2026-01' }))._id));
      ids.consents.push(String((await post('consents', { user_id: ids.user, purpose: 'marketing_email', granted: false, source: personal.source, policy_version: '2026-03' }))._id));
      await h.app.dispatcher.runOnce();
      const bodies = await h.database.db.selectFrom('webhook_deliveries').select('payload').execute();
      // Every personal value but the sensitive fields, which no webhook payload carries (docs/webhooks.md).
      const sensitive: readonly string[] = [personal.email, personal.phone, personal.birth];
      expect(leaks(JSON.stringify(bodies)).sort()).toEqual(values.filter((v) => !sensitive.includes(v)).sort());
    });
    afterAll(async () => {
      await h.close();
      rmSync(directory, { recursive: true, force: true });
    });

    it('keeps personal values readable for the API before erasure (sealed audit values open)', async () => {
      const audit = await get(`/v1/audit-logs?record_id=${ids.user}&action=create`);
      expect(audit.json().items[0].new_values.email).toBe(personal.email);
      // …but not in clear in the stored trail.
      const raw = await h.database.db.selectFrom('audit_logs').select('new_values').where('record_id', '=', ids.user).execute();
      expect(leaks(JSON.stringify(raw))).toEqual([]);
    });

    it.runIf(dialect === 'sqlite')('holds the values in its files before erasure, in the write-ahead log and, once checkpointed, in the database file', async () => {
      expect(leaksOnDisk()).toContain(personal.notes);
      // What SQLite's automatic checkpoint does every thousand pages.
      await sql`pragma wal_checkpoint(passive)`.execute(h.database.db);
      expect(leaks(readFileSync(sqliteFile).toString('latin1'))).toContain(personal.notes);
    });

    it('a legal hold on the user or on a referencing record blocks erasure (409 naming the hold) until lifted', async () => {
      const onUser = await post('legal-holds', { resource: 'users', record_id: ids.user, reason: 'case 1' });
      const onBooking = await post('legal-holds', { resource: 'bookings', record_id: ids.deletedBooking, reason: 'case 2' });
      const refused = await h.request({ method: 'POST', url: `/v1/users/${ids.user}/erase`, token });
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'legal_hold', holds: [onUser._id, onBooking._id].sort() });
      for (const hold of [onUser, onBooking]) {
        const etag = String((await get(`/v1/legal-holds/${String(hold._id)}`)).headers.etag);
        expect((await h.request({ method: 'DELETE', url: `/v1/legal-holds/${String(hold._id)}`, token, headers: { 'if-match': etag } })).statusCode).toBe(204);
      }
      // An expired hold binds no more.
      await post('legal-holds', { resource: 'users', record_id: ids.user, reason: 'old case', expires_at: '2020-01-01T00:00:00.000Z' });
    });

    it('an injected failure in the erasure’s first transaction changes nothing', async () => {
      await failure.failFor(ids.user);
      const failed = await h.request({ method: 'POST', url: `/v1/users/${ids.user}/erase`, token });
      expect(failed.statusCode).toBeGreaterThanOrEqual(500);
      await failure.clear();
      expect((await get(`/v1/bookings/${ids.booking}`)).json().notes).toBe(personal.notes);
      expect((await get(`/v1/users/${ids.user}`)).json()).toMatchObject({ email: personal.email, erased_at: null, status: 'active' });
      const audit = await get(`/v1/audit-logs?record_id=${ids.user}&action=create`);
      expect(audit.json().items[0].new_values.email).toBe(personal.email);
      expect((await get('/v1/audit-logs?action=erase')).json().total).toBe(0);
    });

    it('depersonalises the user and every referencing record in one call; counts, not values, in the trail', async () => {
      const res = await h.request({ method: 'POST', url: `/v1/users/${ids.user}/erase`, token });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toEqual({ user_id: ids.user, erased_at: expect.any(String), records: { bookings: 2, orders: 1, subscriptions: 1, consents: 2 } });

      const user = (await get(`/v1/users/${ids.user}`)).json();
      expect(user).toMatchObject({
        email: '[erased]',
        phone: null,
        first_name: '[erased]',
        last_name: '[erased]',
        date_of_birth: null,
        status: 'disabled',
        erased_at: body.erased_at,
        external_id: 'crm-1',
      });
      const booking = (await get(`/v1/bookings/${ids.booking}`)).json();
      expect(booking).toMatchObject({ notes: '[erased]', product_id: ids.product, user_id: ids.user, status: 'active', ...timeRange });
      expect((await get(`/v1/orders/${ids.order}`)).json()).toMatchObject({ total_amount: 120.5, status: 'active', user_id: ids.user });
      expect((await get(`/v1/subscriptions/${ids.subscription}`)).json()).toMatchObject({ plan: 'gold' });
      const consents = (await get(`/v1/consents?user_id=${ids.user}&sort=created_at`)).json().items;
      expect(consents.map((c: Record<string, unknown>) => [c.purpose, c.granted, c.source, c.policy_version])).toEqual([
        ['marketing_email', true, null, '2026-01'],
        ['marketing_email', false, null, '2026-03'],
      ]);

      // The first transaction's entry names the erased fields; the last one adds the time and the counts.
      const entries = (await get(`/v1/audit-logs?action=erase&resource=users&record_id=${ids.user}`)).json().items as { new_values: Record<string, unknown> }[];
      expect(entries.map((e) => e.new_values).find((v) => !('erased_at' in v))).toEqual({ erased_fields: ['date_of_birth', 'email', 'first_name', 'last_name', 'phone'] });
      const entry = entries.find((e) => 'erased_at' in e.new_values);
      expect(entries).toHaveLength(2);
      expect(entry?.new_values).toEqual({ erased_at: body.erased_at, erased_fields: ['date_of_birth', 'email', 'first_name', 'last_name', 'phone'], records: body.records });
      // The other user is untouched and still readable in the trail.
      const other = await get(`/v1/audit-logs?record_id=${ids.other}&action=create`);
      expect(other.json().items[0].new_values.email).toBe('other@example.com');
    });

    it('a create replayed by its Idempotency-Key shows no erased value and makes no new record', async () => {
      for (const [resource, body, key, id] of [
        ['users', userBody, 'create-user', ids.user],
        ['bookings', bookingBody(), 'create-booking', ids.booking],
      ] as const) {
        const replay = await h.request({ method: 'POST', url: `/v1/${resource}`, token, body, headers: { 'idempotency-key': key } });
        expect(replay.statusCode, replay.body).toBe(201);
        expect(replay.headers['idempotency-replayed']).toBe('true');
        expect(replay.json()._id).toBe(id);
        expect(leaks(replay.body)).toEqual([]);
      }
      expect((await get(`/v1/users/${ids.user}`)).json().email).toBe('[erased]');
      expect((await get('/v1/users?per_page=100')).json().total).toBe(2);
    });

    it('is idempotent: a second call answers the same and writes nothing', async () => {
      const before = (await get('/v1/audit-logs?per_page=1')).json().total;
      const first = ((await get(`/v1/audit-logs?action=erase&resource=users&record_id=${ids.user}`)).json().items as { new_values: Record<string, unknown> }[]).find(
        (e) => 'erased_at' in e.new_values,
      )?.new_values;
      const again = await h.request({ method: 'POST', url: `/v1/users/${ids.user}/erase`, token });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ user_id: ids.user, erased_at: first?.erased_at, records: first?.records });
      expect((await get('/v1/audit-logs?per_page=1')).json().total).toBe(before);
    });

    it('no API surface returns an erased value: reads, lists, filters, audit list and export (NDJSON, CSV), subject export', async () => {
      const surfaces = [
        `/v1/users/${ids.user}`,
        '/v1/users?per_page=100',
        `/v1/bookings?user_id=${ids.user}`,
        `/v1/consents?user_id=${ids.user}`,
        '/v1/audit-logs?per_page=100',
        '/v1/audit-logs?per_page=100&page=2',
        '/v1/audit-logs/export',
        '/v1/audit-logs/export?format=csv',
        `/v1/users/${ids.user}/export`,
      ];
      for (const url of surfaces) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        expect(leaks(res.body), url).toEqual([]);
      }
      // Filters on an old value find nothing, or refuse a field that cannot be filtered (no oracle).
      for (const resource of resources) {
        for (const [name, field] of Object.entries(resource.fields)) {
          if ((field.gdpr !== 'personal' && field.gdpr !== 'special') || resource.name === 'audit-logs') continue;
          const res = await get(`/v1/${resource.name}?where=${encodeURIComponent(JSON.stringify({ [name]: personal.email }))}`);
          if (field.filterable) expect(res.json().total, `${resource.name}.${name}`).toBe(0);
          else expect([400, 403, 404], `${resource.name}.${name}`).toContain(res.statusCode);
        }
      }
    });

    it('keeps an erased user disabled: turning it active again is a 409', async () => {
      const read = await get(`/v1/users/${ids.user}`);
      expect(read.json()).toMatchObject({ status: 'disabled', erased_at: expect.any(String) });
      const patch = await h.request({ method: 'PATCH', url: `/v1/users/${ids.user}`, token, headers: { 'if-match': String(read.headers.etag) }, body: { status: 'active' } });
      expect(patch.statusCode, patch.body).toBe(409);
      expect(patch.json()).toMatchObject({ code: 'invalid_transition', from: 'disabled', to: 'active', allowed: [] });
      expect((await get(`/v1/users/${ids.user}`)).json()).toMatchObject({ status: 'disabled' });
    });

    it('reaches a soft-deleted user too: its stored row and trail are depersonalised', async () => {
      const gone = await post('users', { email: 'gone.deleted-user@example.com', first_name: 'Gone' });
      const etag = String((await get(`/v1/users/${String(gone._id)}`)).headers.etag);
      expect((await h.request({ method: 'DELETE', url: `/v1/users/${String(gone._id)}`, token, headers: { 'if-match': etag } })).statusCode).toBe(204);
      const res = await h.request({ method: 'POST', url: `/v1/users/${String(gone._id)}/erase`, token });
      expect(res.statusCode, res.body).toBe(200);
      const tables = ['users', 'audit_logs', 'outbox_events'];
      for (const table of tables) expect(JSON.stringify(await h.database.db.selectFrom(table).selectAll().execute()), table).not.toContain('gone.deleted-user@example.com');
      expect((await get(`/v1/users/${String(gone._id)}`)).statusCode).toBe(404);
    });

    it.runIf(dialect === 'sqlite')("leaves none of them in the database's files either: freed space zeroed, the write-ahead log truncated", () => {
      expect(leaksOnDisk()).toEqual([]);
    });

    it('leaves none of the original values in clear text in any table, and the key is destroyed', async () => {
      const tables = await h.database.db.introspection.getTables();
      expect(tables.length).toBeGreaterThan(15);
      for (const table of tables) {
        const rows = await h.database.db.selectFrom(table.name).selectAll().execute();
        expect(leaks(JSON.stringify(rows)), table.name).toEqual([]);
      }
      const keys = await h.database.db.selectFrom('subject_keys').selectAll().where('subject_id', '=', ids.user).execute();
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.every((k) => k.key === null && k.destroyed_at !== null)).toBe(true);
      const createEntry = (await get(`/v1/audit-logs?record_id=${ids.user}&action=create`)).json().items[0];
      expect(createEntry.new_values).toMatchObject({ email: '[erased]', first_name: '[erased]', locale: 'en' });
      const erased = await h.database.db.selectFrom('outbox_events').select(['type', 'record_id']).where('type', '=', 'users.erased').where('record_id', '=', ids.user).execute();
      expect(erased).toEqual([{ type: 'users.erased', record_id: ids.user }]);
      // Consents have no update operation, so no `consents.updated` a webhook could not subscribe to.
      const types = await h.database.db.selectFrom('outbox_events').select('type').distinct().execute();
      const subscribable = (await get('/v1/webhooks/events')).json() as { items?: string[] } | string[];
      const names = Array.isArray(subscribable) ? subscribable : (subscribable.items ?? []);
      expect(types.map((t) => String(t.type)).filter((type) => !names.includes(type))).toEqual([]);
    });
  });
});
