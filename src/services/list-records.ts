import { sql } from 'kysely';
import type { Expression, SqlBool } from 'kysely';
import type { ScopedQueries } from '../data/scoped-queries.js';
import { storedFields } from '../db/schema.js';
import { compileFilter, compileSort } from '../query/compile-filter.js';
import type { ListQuery } from '../query/list-query.js';
import type { ResourceDef } from '../registry/types.js';
import type { CountCache } from './count-cache.js';
import type { Row } from '../data/record-codec.js';

export interface Page {
  readonly rows: readonly Row[];
  readonly total: number;
}

/**
 * One page of live, in-scope rows matching a parsed list query, and the total match count.
 * The page query can walk a sort index and stop after one page; the count runs only when
 * the page is full (or empty past the start), from the same filtered base.
 */
export async function listRows(queries: ScopedQueries, resource: ResourceDef, query: ListQuery, counts?: CountCache, within?: Expression<SqlBool>): Promise<Page> {
  const filter = query.filter ? compileFilter(query.filter, resource, queries.dialect) : null;
  let base = queries.scoped(resource);
  // A sub-collection's parent (a webhook's deliveries).
  if (within) base = base.where(within);
  if (filter) base = base.where(filter);

  const columns = query.fields ? storedFields(resource).filter((f) => query.fields?.includes(f) || f === '_id') : storedFields(resource);
  let select = base.select(columns.map((c) => sql.ref(c).as(c)));
  for (const order of compileSort(query.sort, resource)) select = select.orderBy(order);
  const offset = (query.page - 1) * query.perPage;
  const rows: readonly Row[] = await select.limit(query.perPage).offset(offset).execute();
  // A short page tells the total; otherwise count separately. (A window count in the page
  // query would make the database read and sort every match before taking one page.)
  const known = rows.length < query.perPage && (rows.length > 0 || offset === 0);
  if (known) return { rows, total: offset + rows.length };
  const count = base.select(sql<number>`count(*)`.as('n'));
  // The compiled count (SQL and parameters, tenant scope included) identifies the total.
  const compiled = count.compile();
  const key = `${resource.name}\n${compiled.sql}\n${JSON.stringify(compiled.parameters)}`;
  const cached = counts?.get(resource.name, key);
  if (cached !== undefined) return { rows, total: cached };
  const generation = counts?.generation(resource.name) ?? 0;
  const total = Number((await count.executeTakeFirstOrThrow()).n);
  counts?.set(key, total, generation);
  return { rows, total };
}
