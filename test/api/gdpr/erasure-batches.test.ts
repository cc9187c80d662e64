import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/core/clock.js';
import { asSystem } from '../../../src/core/principal.js';
import type { RequestContext } from '../../../src/core/request-context.js';
import { eraseUser } from '../../../src/gdpr/erase-user.js';
import type { ErasureOptions } from '../../../src/gdpr/erase-user.js';
import { ApiError } from '../../../src/http/errors.js';
import { IdempotencyKeys } from '../../../src/http/idempotency.js';
import { DataKey } from '../../../src/security/data-key.js';
import { TenantDirectory } from '../../../src/security/tenant-directory.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/**
 * Erasure runs in batches of records, one short transaction each, so other writers get the
 * database between them (docs/gdpr.md "Erasure"); the batch size is made small here so a
 * handful of records spans several. Once it answers nothing personal is left; cut short, it
 * leaves the user disabled and is finished by running it again.
 */
describe.each(dialects)('erasure in batches on %s', (dialect) => {
  let h: Harness;
  let token = '';
  let context: RequestContext;
  let answers: IdempotencyKeys;
  let product = '';
  let serial = 0;
  const batchSize = 3;

  beforeAll(async () => {
    h = await createHarness(dialect);
    const tenant = await h.tenant('Batches');
    token = await h.bearer(tenant, [...crud('users'), ...crud('bookings'), ...crud('products'), 'consents:create', 'audit-logs:list', 'users:erase', 'users:write:email', 'users:read:email']);
    const scope = await new TenantDirectory(h.database).resolve(tenant);
    if (!scope) throw new Error('no scope');
    context = { principal: { ...asSystem(), scope }, clientIp: null, requestId: null };
    answers = new IdempotencyKeys(h.database, systemClock, DataKey.open({ dataKey: h.config.dataKey, dataDir: h.config.dataDir }));
    product = String((await post('products', { name: 'Hall', address: 'a', city: 'c', zip_code: '1', total_items: 1000 }))._id);
  });
  afterAll(() => h.close());

  async function post(resource: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await h.request({ method: 'POST', url: `/v1/${resource}`, token, body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as Record<string, unknown>;
  }
  const get = (url: string) => h.request({ method: 'GET', url, token });
  async function patch(resource: string, id: string, body: unknown) {
    const etag = String((await get(`/v1/${resource}/${id}`)).headers.etag);
    return h.request({ method: 'PATCH', url: `/v1/${resource}/${id}`, token, body, headers: { 'if-match': etag } });
  }

  /** A user with `count` bookings and a consent, each holding a value of its own that erasure must remove. */
  async function subject(count: number): Promise<{ user: string; bookings: string[]; values: string[] }> {
    serial += 1;
    const name = `Batchelor${serial}`;
    const user = String((await post('users', { email: `${name.toLowerCase()}@example.com`, first_name: name, last_name: 'Quill' }))._id);
    const bookings: string[] = [];
    const values = [`${name.toLowerCase()}@example.com`, name];
    for (let i = 0; i < count; i += 1) {
      const notes = `${name} asks for room ${i}`;
      bookings.push(String((await post('bookings', { product_id: product, user_id: user, notes, start_time: '2030-01-01T10:00:00Z', end_time: '2030-01-02T10:00:00Z' }))._id));
      values.push(notes);
    }
    await post('consents', { user_id: user, purpose: 'newsletter', granted: true, source: `${name}'s signup form`, policy_version: '1' });
    values.push(`${name}'s signup form`);
    return { user, bookings, values };
  }

  const erase = (user: string, options: ErasureOptions = {}) => eraseUser(h.app.resources, answers, context, user, { batchSize, ...options });

  /** Values of `values` found anywhere in the database. */
  async function leftIn(values: readonly string[]): Promise<string[]> {
    const found = new Set<string>();
    for (const table of await h.database.db.introspection.getTables()) {
      const text = JSON.stringify(await h.database.db.selectFrom(table.name).selectAll().execute());
      for (const value of values) if (text.includes(value)) found.add(`${table.name}: ${value}`);
    }
    return [...found].sort();
  }

  const notesOf = async (ids: readonly string[]) => Promise.all(ids.map(async (id) => (await get(`/v1/bookings/${id}`)).json().notes as unknown));

  it('erases a user with more records than a batch in several transactions, and leaves nothing', async () => {
    const { user, bookings, values } = await subject(7);
    expect((await leftIn(values)).length).toBeGreaterThan(0);
    const batches: number[] = [];
    const result = await erase(user, { afterBatch: async (batch) => void batches.push(batch) });
    expect(result).toEqual({ user_id: user, erased_at: expect.any(String), records: { bookings: 7, orders: 0, subscriptions: 0, consents: 1 } });
    // Seven bookings in batches of three, and the consent.
    expect(batches).toEqual([1, 2, 3, 4]);
    expect(await leftIn(values)).toEqual([]);
    expect(await notesOf(bookings)).toEqual(bookings.map(() => '[erased]'));
    expect((await get(`/v1/users/${user}`)).json()).toMatchObject({ status: 'disabled', erased_at: result.erased_at, first_name: '[erased]' });
    // The user's own entry counts the records; its `users.erased` event is sent once.
    const entries = (await get(`/v1/audit-logs?record_id=${user}&action=erase`)).json().items as { new_values: Record<string, unknown> }[];
    expect(entries.map((e) => e.new_values).find((v) => 'erased_at' in v)).toEqual({ erased_at: result.erased_at, erased_fields: ['email', 'first_name', 'last_name'], records: result.records });
    const erasedEvents = await h.database.db.selectFrom('outbox_events').select('type').where('record_id', '=', user).where('type', '=', 'users.erased').execute();
    expect(erasedEvents).toHaveLength(1);
  });

  it('a crash between two batches leaves the user disabled and depersonalised; erasing again finishes', async () => {
    const { user, bookings, values } = await subject(7);
    const crash = new Error('the process died');
    await expect(
      erase(user, {
        afterBatch: async (batch) => {
          if (batch === 2) throw crash;
        },
      }),
    ).rejects.toBe(crash);
    // Unusable from the first transaction on, and not reported erased yet.
    expect((await get(`/v1/users/${user}`)).json()).toMatchObject({ status: 'disabled', erased_at: null, email: '[erased]', first_name: '[erased]' });
    const notes = await notesOf(bookings);
    expect(notes.slice(0, 2 * batchSize)).toEqual(bookings.slice(0, 2 * batchSize).map(() => '[erased]'));
    expect(notes.slice(2 * batchSize)).toEqual(values.slice(2 + 2 * batchSize, 2 + bookings.length));

    const again = await h.request({ method: 'POST', url: `/v1/users/${user}/erase`, token });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ records: { bookings: 7, consents: 1 } });
    expect(await leftIn(values)).toEqual([]);
    expect((await get(`/v1/users/${user}`)).json()).toMatchObject({ status: 'disabled', erased_at: again.json().erased_at });
  });

  it('lets a booking write commit between two batches, and erases what it wrote on a record already passed', async () => {
    const { user, bookings, values } = await subject(7);
    const other = await subject(1);
    const during: number[] = [];
    const result = await erase(user, {
      afterBatch: async (batch) => {
        if (batch !== 1) return;
        // Another user's booking, and one of this user's the first batch erased, given a personal value again.
        during.push((await patch('bookings', other.bookings[0] ?? '', { quantity: 2 })).statusCode);
        during.push((await patch('bookings', bookings[0] ?? '', { notes: 'Batchelor rewrote this' })).statusCode);
      },
    });
    expect(during).toEqual([200, 200]);
    expect(result.records.bookings).toBe(7);
    expect(await leftIn([...values, 'Batchelor rewrote this'])).toEqual([]);
    // The rewritten booking was erased twice: by its batch, and by the pass over what was left.
    expect((await get(`/v1/audit-logs?record_id=${bookings[0] ?? ''}&action=erase`)).json().total).toBe(2);
    expect((await get(`/v1/bookings/${other.bookings[0] ?? ''}`)).json()).toMatchObject({ quantity: 2, notes: other.values[2] });
  });

  it('answers 409 conflict when writers keep giving the records personal values, and is finished by a later call', async () => {
    const { user, bookings, values } = await subject(2);
    let rewrites = 0;
    const refused = erase(user, {
      afterBatch: async () => {
        rewrites += 1;
        expect((await patch('bookings', bookings[0] ?? '', { notes: `Batchelor rewrite ${rewrites}` })).statusCode).toBe(200);
      },
    });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({ code: 'conflict' });
    expect((await get(`/v1/users/${user}`)).json()).toMatchObject({ status: 'disabled', erased_at: null });
    const again = await h.request({ method: 'POST', url: `/v1/users/${user}/erase`, token });
    expect(again.statusCode, again.body).toBe(200);
    expect(await leftIn([...values, 'Batchelor rewrite'])).toEqual([]);
  });
});
