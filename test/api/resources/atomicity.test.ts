import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { failureMarker, installAuditFailure } from '../../support/audit-failure.js';
import type { AuditFailure } from '../../support/audit-failure.js';
import { expectProblem } from '../../support/problem.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };

describe.each(dialects)('writes and their audit entries are atomic on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let failure: AuditFailure;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Atomic'), [...crud('products'), ...crud('bookings')]);
    failure = await installAuditFailure(h.database);
  });
  afterAll(() => h.close());

  const count = async (table: string, where: Record<string, unknown> = {}) => {
    let query = h.database.db.selectFrom(table).select(sql<number>`count(*)`.as('n'));
    for (const [column, value] of Object.entries(where)) query = query.where(column, '=', value);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  const rawRow = (id: string) => h.database.db.selectFrom('products').selectAll().where('_id', '=', id).executeTakeFirst();
  const audits = (id: string) => h.database.db.selectFrom('audit_logs').selectAll().where('record_id', '=', id).execute();

  async function create(body: Record<string, unknown> = product) {
    const response = await h.request({ method: 'POST', url: '/v1/products/', token, body });
    expect(response.statusCode, response.body).toBe(201);
    return { id: String(response.json()._id), etag: String(response.headers.etag) };
  }

  /** The 500 of an injected failure: generic, without the database's message. */
  function expectCleanFailure(response: Parameters<typeof expectProblem>[0]): void {
    expectProblem(response, 500, 'internal_error');
    expect(response.body).not.toMatch(/injected|audit_logs|trigger|raise/i);
  }

  it('leaves nothing behind when a booking names a product that does not exist', async () => {
    const [bookings, entries] = [await count('bookings'), await count('audit_logs')];
    const response = await h.request({
      method: 'POST',
      url: '/v1/bookings/',
      token,
      body: { product_id: '01890000-0000-7000-8000-000000000000', start_time: '2026-01-01T10:00:00Z', end_time: '2026-01-02T10:00:00Z' },
    });
    expect(expectProblem(response, 400, 'validation_failed').errors).toEqual([{ field: 'product_id', message: expect.any(String) }]);
    expect(await count('bookings')).toBe(bookings);
    expect(await count('audit_logs')).toBe(entries);
  });

  it('leaves no audit entry for refused updates and deletes', async () => {
    const { id, etag } = await create();
    const before = await count('audit_logs');
    const stale = '"stale"';
    expectProblem(await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { city: 'Hamburg' }, headers: { 'if-match': stale } }), 412, 'precondition_failed');
    expectProblem(await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { city: 'Hamburg' } }), 428, 'precondition_required');
    expectProblem(await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { colour: 'red' }, headers: { 'if-match': etag } }), 400, 'validation_failed');
    expectProblem(await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': stale } }), 412, 'precondition_failed');
    expect(await count('audit_logs')).toBe(before);
    expect((await rawRow(id))?.etag).toBe(etag);
  });

  it('rolls a create back when its audit entry fails', async () => {
    const before = await count('audit_logs');
    const name = `Doomed ${failureMarker}`;
    expectCleanFailure(await h.request({ method: 'POST', url: '/v1/products/', token, body: { ...product, name } }));
    expect(await count('products', { name })).toBe(0);
    expect(await count('audit_logs')).toBe(before);
    const listed = await h.request({ method: 'GET', url: `/v1/products/?name=${encodeURIComponent(name)}`, token });
    expect(listed.json().total).toBe(0);
  });

  it('rolls an update back when its audit entry fails', async () => {
    const { id, etag } = await create();
    const before = await rawRow(id);
    await failure.failFor(id);
    try {
      expectCleanFailure(await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { city: 'Hamburg' }, headers: { 'if-match': etag } }));
      expect(await rawRow(id)).toEqual(before);
      expect((await audits(id)).map((entry) => entry.action)).toEqual(['create']);
    } finally {
      await failure.clear();
    }
    // The ETag did not move: the very same request now succeeds.
    const retry = await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { city: 'Hamburg' }, headers: { 'if-match': etag } });
    expect(retry.statusCode).toBe(200);
  });

  it('rolls a delete back when its audit entry fails', async () => {
    const { id, etag } = await create();
    await failure.failFor(id);
    try {
      expectCleanFailure(await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': etag } }));
      expect((await rawRow(id))?.deleted_at).toBeNull();
      expect((await rawRow(id))?.etag).toBe(etag);
      expect((await audits(id)).map((entry) => entry.action)).toEqual(['create']);
      expect((await h.request({ method: 'GET', url: `/v1/products/${id}`, token })).headers.etag).toBe(etag);
    } finally {
      await failure.clear();
    }
    expect((await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': etag } })).statusCode).toBe(204);
  });

  it('writes exactly one matching audit entry per successful write', async () => {
    const { id, etag } = await create({ ...product, name: 'Audited' });
    let entries = await audits(id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'create', resource: 'products', record_id: id, actor_type: 'client' });

    const patched = await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { city: 'Hamburg', total_items: 3 }, headers: { 'if-match': etag } });
    expect(patched.statusCode).toBe(200);
    expect((await rawRow(id))?.etag).toBe(patched.headers.etag);
    entries = await audits(id);
    expect(entries.map((entry) => entry.action).sort()).toEqual(['create', 'update']);
    const update = entries.find((entry) => entry.action === 'update');
    const decode = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);
    expect(decode(update?.old_values)).toEqual({ city: 'Berlin' });
    expect(decode(update?.new_values)).toEqual({ city: 'Hamburg' });

    const deleted = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': String(patched.headers.etag) } });
    expect(deleted.statusCode).toBe(204);
    const removal = (await audits(id)).filter((entry) => entry.action === 'delete');
    expect(removal).toHaveLength(1);
    expect(decode(removal[0]?.old_values)).toMatchObject({ _id: id, name: 'Audited', city: 'Hamburg' });
    expect(removal[0]?.new_values).toBeNull();
  });

  it('never shows a new ETag without its audit entry, or the reverse', async () => {
    const { id, etag } = await create();
    const etags = [etag];
    const samples: { etag: string; updates: number }[] = [];
    let writing = true;
    const sampler = (async () => {
      // One statement, one snapshot: the record's ETag and its audit count as of one instant.
      while (writing) {
        const row = await sql<{ etag: string; updates: number }>`
          select (select etag from products where _id = ${id}) as etag,
                 (select count(*) from audit_logs where record_id = ${id} and action = 'update') as updates`.execute(h.database.db);
        if (row.rows[0]) samples.push({ etag: row.rows[0].etag, updates: Number(row.rows[0].updates) });
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 10; i += 1) {
      const response = await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { total_items: i }, headers: { 'if-match': etags[etags.length - 1] ?? '' } });
      expect(response.statusCode).toBe(200);
      etags.push(String(response.headers.etag));
    }
    writing = false;
    await sampler;
    expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples) expect(etags.indexOf(sample.etag)).toBe(sample.updates);
  });
});
