/**
 * The checked form of a list request's query string, produced by `parseListQuery` and
 * consumed by the list and export services.
 */
import type { FilterNode } from './filter-ast.js';

/** One `ORDER BY` key. */
export interface SortKey {
  readonly field: string;
  readonly direction: 'asc' | 'desc';
}

/** A parsed list query. */
export interface ListQuery {
  /** `where` and query-parameter filters combined with AND; `null` when there are none. */
  readonly filter: FilterNode | null;
  /** Requested keys, always ending with an `_id` tie-breaker for a stable order. */
  readonly sort: readonly SortKey[];
  /** Requested fields, `_id` first; `null` means all fields. */
  readonly fields: readonly string[] | null;
  /** 1-based page number. */
  readonly page: number;
  readonly perPage: number;
}

/** Query parameters with a fixed meaning on every list; never treated as field filters. */
export const listParameters: ReadonlySet<string> = new Set(['where', 'page', 'per_page', 'sort', 'fields']);

/** A query string as Fastify parses it: repeated names become arrays. */
export type QueryString = Readonly<Record<string, string | readonly string[] | undefined>>;
