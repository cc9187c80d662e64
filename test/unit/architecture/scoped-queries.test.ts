import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resources } from '../../../src/registry/index.js';
import { findUnscopedQueries } from '../../support/unscoped-queries.js';

const root = join(import.meta.dirname, '../../..');
const resourceTables = new Set(resources.map((r) => r.table));

/**
 * Where resource tables may be touched directly: the data layer that builds the scoped
 * queries and the write helpers, and the migrations that create the tables.
 */
const allowed = [/^src\/data\//, /^src\/db\/migrations\//];

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|cts|mts)$/.test(entry.name) ? [path] : [];
  });
}

describe('every query on a resource table goes through the scope (DESIGN.md rule 3)', () => {
  it('no file outside src/data and the migrations calls selectFrom/updateTable/deleteFrom/insertInto on a resource table', () => {
    const files = [...sources('src'), ...sources('cli')].map((file) => relative(root, join(root, file)));
    expect(files.length).toBeGreaterThan(50);
    const violations = files
      .filter((file) => !allowed.some((pattern) => pattern.test(file)))
      .flatMap((file) => findUnscopedQueries(file, readFileSync(join(root, file), 'utf8'), resourceTables))
      .map((v) => `${v.file}:${v.line} ${v.text} — use unit.scoped(resource) / the UnitOfWork write helpers, or asSystem() for a deliberate unscoped read`);
    expect(violations).toEqual([]);
  });

  it('the scanner finds literal resource tables, aliased ones and computed table names, and ignores the service\'s own tables', () => {
    const source = [
      "db.selectFrom('bookings').selectAll();",
      "trx.updateTable('api_clients as c').set({});",
      'db.deleteFrom(resource.table);',
      "trx.insertInto(`products`).values({});",
      "db.selectFrom('replay_cache').selectAll();",
      "db.insertInto('outbox_events').values({});",
      'unit.scoped(bookings).selectAll();',
    ].join('\n');
    const found = findUnscopedQueries('fixture.ts', source, resourceTables);
    expect(found.map((f) => f.line)).toEqual([1, 2, 3, 4]);
  });
});
