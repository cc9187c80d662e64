import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const tricky = 'Comma, "quote"\nnew line';

/** Splits RFC 4180 CSV (quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endCell();
    else if (c === '\r' && text[i + 1] === '\n') {
      endCell();
      rows.push(row);
      row = [];
      i++;
    } else cell += c;
  }
  return rows;
}

describe.each(dialects)('audit export on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    const tenant = await h.tenant('A');
    token = await h.bearer(tenant, [...crud('products'), 'audit-logs:list', 'audit-logs:export']);
    for (let i = 0; i < 30; i++) {
      const name = i === 7 ? tricky : i === 8 ? '=HYPERLINK("x")' : `Product ${i}`;
      const res = await h.request({ method: 'POST', url: '/v1/products', token, body: { name, address: 'a', city: i % 2 ? 'Berlin' : 'Paris', zip_code: '1', total_items: i } });
      expect(res.statusCode).toBe(201);
    }
  });
  afterAll(() => h.close());

  it('streams NDJSON that matches the list query exactly (filters, order)', async () => {
    const query = 'where=' + encodeURIComponent(JSON.stringify({ action: 'create', resource: 'products' }));
    const list = await h.request({ method: 'GET', url: `/v1/audit-logs/?${query}&per_page=100`, token });
    const exported = await h.request({ method: 'GET', url: `/v1/audit-logs/export?${query}`, token });
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toContain('application/x-ndjson');
    const lines = exported.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { _id: string });
    expect(lines.map((l) => l._id)).toEqual((list.json().items as { _id: string }[]).map((i) => i._id));
    expect(lines).toHaveLength(30);
  });

  it('pages through batches without losing or repeating entries (ascending too)', async () => {
    // Data entries only: security events are written in the background and may land between calls.
    const all = await h.request({ method: 'GET', url: '/v1/audit-logs/export?sort=created_at&category=data', token });
    const ids = all.body
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { _id: string })._id);
    expect(new Set(ids).size).toBe(ids.length);
    const list = await h.request({ method: 'GET', url: '/v1/audit-logs/?sort=created_at&category=data&per_page=100', token });
    expect(ids).toEqual((list.json().items as { _id: string }[]).map((i) => i._id));
  });

  it('writes CSV with escaped commas, quotes, newlines and neutralised formulas', async () => {
    const res = await h.request({ method: 'GET', url: '/v1/audit-logs/export?format=csv&action=create&fields=_id,new_values', token });
    expect(res.headers['content-type']).toContain('text/csv');
    const rows = parseCsv(res.body);
    expect(rows[0]).toEqual(['_id', 'new_values']);
    const values = rows.slice(1).map((r) => JSON.parse(r[1] ?? '{}') as { name?: string });
    expect(values.map((v) => v.name)).toContain(tricky);
    expect(res.body).not.toMatch(/(^|,)=HYPERLINK/m);
  });

  it('refuses bad export parameters with a problem, not a broken stream', async () => {
    expect((await h.request({ method: 'GET', url: '/v1/audit-logs/export?format=xml', token })).statusCode).toBe(400);
    expect((await h.request({ method: 'GET', url: '/v1/audit-logs/export?sort=action', token })).statusCode).toBe(400);
    expect((await h.request({ method: 'GET', url: '/v1/audit-logs/export?where={"$where":"1"}', token })).statusCode).toBe(400);
    // An export answers every match: paging it would be silently ignored, so it is refused.
    for (const paging of ['page=2', 'per_page=1']) {
      const paged = await h.request({ method: 'GET', url: `/v1/audit-logs/export?${paging}`, token });
      expect(paged.statusCode, paging).toBe(400);
      expect(paged.json().errors, paging).toEqual([{ field: paging.split('=')[0], message: 'an export is not paged: it answers every match' }]);
    }
    const noCap = await h.bearer(null, ['audit-logs:list']);
    expect((await h.request({ method: 'GET', url: '/v1/audit-logs/export', token: noCap })).statusCode).toBe(403);
  });
});
