import { sql } from 'kysely';
import type { ScopedQueries } from '../data/scoped-queries.js';
import { validationError } from '../http/errors.js';
import { compileFilter } from '../query/compile-filter.js';
import { compileSort } from '../query/compile-sort.js';
import type { ListQuery } from '../query/list-query.js';
import type { ResourceDef } from '../registry/types.js';
import type { Row } from '../data/record-codec.js';

/**
 * Every row matching a list query, in the list's order, fetched in keyset batches: memory
 * stays flat whatever the total, and no connection or transaction is held while the
 * client reads (a slow reader cannot stall the database).
 */
export async function* streamRows(queries: ScopedQueries, resource: ResourceDef, query: ListQuery, batchSize = 1000): AsyncGenerator<Row[]> {
  const [first, second] = query.sort;
  if (!first || first.field !== 'created_at' || query.sort.length !== 2 || second?.field !== '_id') {
    throw validationError([{ field: 'sort', message: 'exports are ordered by created_at (ascending or descending) only' }]);
  }
  const descending = first.direction === 'desc';
  const order = compileSort(query.sort, resource);
  const { dialect } = queries;
  const filter = query.filter ? compileFilter(query.filter, resource, dialect) : null;
  let after: { created_at: unknown; _id: unknown } | undefined;
  for (;;) {
    let select = queries.scoped(resource).selectAll();
    if (filter) select = select.where(filter);
    if (after) {
      const at = dialect.toDb('timestamp', after.created_at);
      const op = sql.raw(descending ? '<' : '>');
      // A row-value comparison: both databases turn it into one index range, where the
      // equivalent OR form made SQLite rescan the scope for every batch.
      select = select.where(sql<boolean>`(created_at, _id) ${op} (${at}, ${after._id})`);
    }
    // The list's own ORDER BY (explicit NULL placement): PostgreSQL's default ASC is NULLS
    // LAST, which no index on created_at serves, so every batch sorted the whole scope.
    for (const key of order) select = select.orderBy(key);
    const rows = (await select.limit(batchSize).execute()) as Row[];
    if (rows.length === 0) return;
    yield rows;
    const last = rows[rows.length - 1] as Row;
    after = { created_at: last.created_at, _id: last._id };
    if (rows.length < batchSize) return;
  }
}
