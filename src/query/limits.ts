/**
 * Bounds of the list query language. They keep the parser, the SQL it produces and the
 * database work per request small whatever a client sends.
 */

/** Deepest nesting of `$and` / `$or` / `$not` (the top-level object is depth 0). */
export const MAX_FILTER_DEPTH = 8;

/** Most comparisons in one query, `where` and query-parameter filters together. */
export const MAX_FILTER_CONDITIONS = 100;

/** Most items in one `$in` / `$nin` list. */
export const MAX_IN_ITEMS = 100;

/** Longest `$regex` pattern, in characters. */
export const MAX_REGEX_LENGTH = 256;

/** Longest `where` parameter (after URL decoding), in characters. */
export const MAX_WHERE_LENGTH = 8192;

/** Longest string value compared against a field, in characters. */
export const MAX_FILTER_STRING_LENGTH = 1000;

/**
 * The integers a filter compares against an integer field: the range of the field's column
 * on PostgreSQL (`int4`), which refuses to compare a larger literal. No stored value lies
 * outside it (every writable integer field has a smaller maximum), so both databases refuse
 * such a filter alike instead of one answering 500 and the other an empty list.
 */
export const FILTER_INTEGER_RANGE = Object.freeze({ min: -2_147_483_648, max: 2_147_483_647 });

/** Most keys in `sort` (the `_id` tie-breaker is not counted). */
export const MAX_SORT_KEYS = 5;

/** Page size when `per_page` is absent. */
export const DEFAULT_PER_PAGE = 25;

/** Largest accepted `per_page`. */
export const MAX_PER_PAGE = 100;

/** Largest accepted `page`; keeps `OFFSET` arithmetic far from overflow. */
export const MAX_PAGE = 1_000_000;
