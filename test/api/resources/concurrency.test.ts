import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };
const strongEtag = /^"[A-Za-z0-9_-]{43}"$/;

describe.each(dialects)('optimistic concurrency on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Concurrency'), crud('products'));
  });
  afterAll(() => h.close());

  async function create() {
    const response = await h.request({ method: 'POST', url: '/v1/products/', token, body: product });
    expect(response.statusCode).toBe(201);
    return { id: String(response.json()._id), etag: String(response.headers.etag) };
  }
  const read = (id: string) => h.request({ method: 'GET', url: `/v1/products/${id}`, token });
  const patch = (id: string, ifMatch: string, body: Record<string, unknown>) => h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body, headers: { 'if-match': ifMatch } });
  const auditCount = async (id: string, action: string) => (await h.database.db.selectFrom('audit_logs').select('_id').where('record_id', '=', id).where('action', '=', action).execute()).length;

  it('lets exactly one of 20 parallel PATCHes with the same ETag win', async () => {
    const { id, etag } = await create();
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => patch(id, etag, { total_items: 100 + i })));
    const winners = responses.filter((r) => r.statusCode === 200);
    const losers = responses.filter((r) => r.statusCode !== 200);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(19);
    for (const loser of losers) expectProblem(loser, 412, 'precondition_failed');

    const winner = winners[0];
    const current = await read(id);
    expect(current.json().total_items).toBe(winner?.json().total_items);
    expect(current.headers.etag).toBe(winner?.headers.etag);
    expect(current.headers.etag).not.toBe(etag);
    expect(await auditCount(id, 'update')).toBe(1);
  });

  it('lets exactly one of 20 parallel DELETEs with the same ETag win', async () => {
    const { id, etag } = await create();
    const responses = await Promise.all(Array.from({ length: 20 }, () => h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': etag } })));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 204)).toHaveLength(1);
    // A loser that read before the commit sees a stale ETag, one that read after sees no record.
    expect(statuses.every((s) => s === 204 || s === 412 || s === 404)).toBe(true);
    expect(await auditCount(id, 'delete')).toBe(1);
  });

  it('refuses a DELETE with a stale ETag and keeps the record', async () => {
    const { id, etag } = await create();
    const updated = await patch(id, etag, { status: 'maintenance' });
    expect(updated.statusCode).toBe(200);
    expectProblem(await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': etag } }), 412, 'precondition_failed');
    expect((await read(id)).statusCode).toBe(200);
    expectProblem(await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token }), 428, 'precondition_required');
    expect((await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': String(updated.headers.etag) } })).statusCode).toBe(204);
  });

  it('answers 404, not 428, for a record absent or out of reach, whether or not If-Match was sent', async () => {
    const { id } = await create();
    const stranger = await h.bearer(await h.tenant('Stranger'), crud('products'));
    for (const [method, target, as] of [
      ['PATCH', id, stranger],
      ['DELETE', id, stranger],
      ['PATCH', '0190a8b2-0000-7000-8000-000000000000', token],
      ['DELETE', '0190a8b2-0000-7000-8000-000000000000', token],
    ] as const) {
      expectProblem(await h.request({ method, url: `/v1/products/${target}`, token: as, ...(method === 'PATCH' ? { body: { city: 'Bonn' } } : {}) }), 404, 'not_found');
    }
    // Its own record without If-Match: 428, and nothing changed.
    expectProblem(await h.request({ method: 'PATCH', url: `/v1/products/${id}`, token, body: { city: 'Bonn' } }), 428, 'precondition_required');
    expect((await read(id)).json().city).not.toBe('Bonn');
  });

  it('accepts an If-Match list that contains the current ETag', async () => {
    const { id, etag } = await create();
    const response = await patch(id, `"stale", ${etag}`, { city: 'Hamburg' });
    expect(response.statusCode).toBe(200);
    const again = await patch(id, `${String(response.headers.etag)},"other"`, { city: 'Munich' });
    expect(again.statusCode).toBe(200);
  });

  it.each([
    ['a weak tag', (etag: string) => `W/${etag}`],
    ['a weak tag in a list', (etag: string) => `"x", W/${etag}`],
    ['*', () => '*'],
    ['the tag unquoted', (etag: string) => etag.slice(1, -1)],
    ['the tag with a prefix', (etag: string) => `"x${etag.slice(1)}`],
    ['an empty tag', () => '""'],
  ])('refuses %s with 412', async (_name, ifMatch) => {
    const { id, etag } = await create();
    expectProblem(await patch(id, ifMatch(etag), { city: 'Hamburg' }), 412, 'precondition_failed');
    expectProblem(await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': ifMatch(etag) } }), 412, 'precondition_failed');
    expect((await read(id)).json().city).toBe('Berlin');
  });

  it('returns a new strong ETag on every PATCH, never reusing an old one (A→B→A)', async () => {
    const { id, etag } = await create();
    const seen = [etag];
    let current = etag;
    for (const status of ['maintenance', 'active', 'maintenance', 'active']) {
      const response = await patch(id, current, { status });
      expect(response.statusCode).toBe(200);
      current = String(response.headers.etag);
      expect(current).toMatch(strongEtag);
      expect(seen).not.toContain(current);
      seen.push(current);
      expect((await read(id)).headers.etag).toBe(current);
    }
    // Back at the original content, yet every earlier ETag stays stale.
    for (const old of seen.slice(0, -1)) expectProblem(await patch(id, old, { city: 'Hamburg' }), 412, 'precondition_failed');
  });

  it('changes the ETag even when a PATCH sets the values the record already has', async () => {
    const { id, etag } = await create();
    const response = await patch(id, etag, { city: 'Berlin' });
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).not.toBe(etag);
    expectProblem(await patch(id, etag, { city: 'Berlin' }), 412, 'precondition_failed');
  });
});
