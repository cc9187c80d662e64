import { sql } from 'kysely';
import type { Database } from '../db/dialect.js';
import { storedFields } from '../db/schema.js';
import { compileFilter, compileSort } from '../query/compile-filter.js';
import type { ListQuery } from '../query/list-query.js';
import type { ResourceDef } from '../registry/types.js';
import type { Principal } from '../security/principal.js';
import { tenantFilter } from './tenant-scope.js';
import type { Row } from './record-codec.js';

export interface Page {
  readonly rows: readonly Row[];
  readonly total: number;
}

/**
 * One page of live, in-scope rows matching a parsed list query, and the total match count.
 * The total rides along as a window count, so a page costs one round trip; only a page past
 * the end needs a separate count.
 */
export async function listRows(database: Database, resource: ResourceDef, principal: Principal, query: ListQuery): Promise<Page> {
  const { db, dialect } = database;
  const scoped = tenantFilter(resource, principal.scope);
  const filter = query.filter ? compileFilter(query.filter, resource, dialect) : null;
  let base = db.selectFrom(resource.table);
  if (resource.softDelete) base = base.where('deleted_at', 'is', null);
  if (scoped) base = base.where(scoped);
  if (filter) base = base.where(filter);

  const columns = query.fields ? storedFields(resource).filter((f) => query.fields?.includes(f) || f === '_id') : storedFields(resource);
  let select = base.select(columns.map((c) => sql.ref(c).as(c))).select(sql<number>`count(*) over ()`.as('__total'));
  for (const order of compileSort(query.sort, resource)) select = select.orderBy(order);
  const rows = await select.limit(query.perPage).offset((query.page - 1) * query.perPage).execute();

  const first = rows[0];
  let total: number;
  if (first) total = Number(first.__total);
  else if (query.page === 1) total = 0;
  else total = Number((await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
  return { rows: rows.map(({ __total: _, ...row }) => row), total };
}
