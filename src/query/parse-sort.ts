import type { ResourceDef } from '../registry/types.js';
import { MAX_SORT_KEYS } from './limits.js';
import type { SortKey } from './list-query.js';
import { queryError, quoteName } from './query-error.js';

const PATH = 'sort';
const DEFAULT_SORT: readonly SortKey[] = [{ field: 'created_at', direction: 'desc' }];
const TIE_BREAKER = '_id';

/**
 * The `sort` parameter: comma-separated sortable field names, `-` prefix for descending,
 * no duplicates, at most {@link MAX_SORT_KEYS}; default `-created_at`. An `_id` key in
 * the direction of the last key is appended unless present, so that pages never overlap
 * or skip rows that tie on the requested keys.
 *
 * @throws ApiError `validation_failed` (400) on field `sort`
 */
export function parseSort(resource: ResourceDef, text: string | undefined): SortKey[] {
  const keys = text === undefined ? [...DEFAULT_SORT] : parseKeys(resource, text);
  const last = keys[keys.length - 1];
  if (last && !keys.some((key) => key.field === TIE_BREAKER)) keys.push({ field: TIE_BREAKER, direction: last.direction });
  return keys;
}

function parseKeys(resource: ResourceDef, text: string): SortKey[] {
  // Bounded split: a longer list is refused without materialising it.
  const items = text.split(',', MAX_SORT_KEYS + 1);
  if (items.length > MAX_SORT_KEYS) throw queryError(PATH, `at most ${MAX_SORT_KEYS} sort keys`);
  const keys: SortKey[] = [];
  for (const item of items) {
    const descending = item.startsWith('-');
    const field = descending ? item.slice(1) : item;
    if (field === '') throw queryError(PATH, 'empty sort key');
    if (!sortable(resource, field)) throw queryError(PATH, `unknown or non-sortable field ${quoteName(field)}`);
    if (keys.some((key) => key.field === field)) throw queryError(PATH, `field ${quoteName(field)} given twice`);
    keys.push({ field, direction: descending ? 'desc' : 'asc' });
  }
  return keys;
}

/** Sensitive fields are never sortable (the order would reveal their values); computed ones have no column. */
function sortable(resource: ResourceDef, field: string): boolean {
  if (!Object.hasOwn(resource.fields, field)) return false;
  const def = resource.fields[field];
  return def?.sortable === true && def.writeOnly !== true && def.sensitive !== true && def.computed !== true;
}
