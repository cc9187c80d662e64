import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { ResourceDef } from '../registry/types.js';
import { columnRef } from './column-ref.js';
import type { CompileOptions } from './column-ref.js';
import type { SortKey } from './list-query.js';

/**
 * `ORDER BY` items for checked sort keys, one per key, to pass to `orderBy` in order.
 * NULL placement is spelled out (ascending: NULLS FIRST, descending: NULLS LAST) because
 * the databases' defaults differ: SQLite treats NULL as smallest, PostgreSQL as largest.
 * SQLite understands the clause since 3.30.
 */
export function compileSort(sort: readonly SortKey[], resource: ResourceDef, options: CompileOptions = {}): RawBuilder<unknown>[] {
  return sort.map(({ field, direction }) => {
    const { column } = columnRef(resource, field, options);
    return direction === 'asc' ? sql`${column} asc nulls first` : sql`${column} desc nulls last`;
  });
}
