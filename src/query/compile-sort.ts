import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { ResourceDef } from '../registry/types.js';
import { columnRef } from './column-ref.js';
import type { CompileOptions } from './column-ref.js';
import type { SortKey } from './list-query.js';

export interface SortOptions extends CompileOptions {
  /** Turns a column into its sort key (`SqlDialect.sortKeyAfterFilter`); the column itself by default. */
  readonly key?: (column: RawBuilder<unknown>) => RawBuilder<unknown>;
}

/**
 * `ORDER BY` items for checked sort keys, one per key, to pass to `orderBy` in order.
 * NULL placement is spelled out (ascending: NULLS FIRST, descending: NULLS LAST) because
 * the databases' defaults differ: SQLite treats NULL as smallest, PostgreSQL as largest.
 * SQLite understands the clause since 3.30.
 */
export function compileSort(sort: readonly SortKey[], resource: ResourceDef, options: SortOptions = {}): RawBuilder<unknown>[] {
  return sort.map(({ field, direction }) => {
    const { column } = columnRef(resource, field, options);
    const key = options.key ? options.key(column) : column;
    return direction === 'asc' ? sql`${key} asc nulls first` : sql`${key} desc nulls last`;
  });
}
