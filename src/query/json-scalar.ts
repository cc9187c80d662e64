import type { FieldType } from '../registry/types.js';
import type { FilterScalar } from './filter-ast.js';
import { MAX_FILTER_STRING_LENGTH } from './limits.js';
import { filterInteger } from './filter-integer.js';
import { parseTimestamp } from '../core/parse-timestamp.js';
import { queryError } from './query-error.js';

/**
 * Checks a JSON value from `where` against a field type and returns it in API form.
 * JSON already carries types, so no coercion happens: `"5"` is not an integer.
 */
export function jsonScalar(type: FieldType, value: unknown, path: string): FilterScalar {
  switch (type) {
    case 'string':
    case 'reference':
      if (typeof value !== 'string') throw queryError(path, 'must be a string');
      if (value.length > MAX_FILTER_STRING_LENGTH) throw queryError(path, `longer than ${MAX_FILTER_STRING_LENGTH} characters`);
      return value;
    case 'integer':
      return filterInteger(value, path);
    case 'number':
      // JSON.parse turns out-of-range literals such as 1e400 into Infinity.
      if (typeof value !== 'number' || !Number.isFinite(value)) throw queryError(path, 'must be a finite number');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw queryError(path, 'must be true or false');
      return value;
    case 'timestamp': {
      const iso = typeof value === 'string' ? parseTimestamp(value) : undefined;
      if (iso === undefined) throw queryError(path, 'must be an ISO 8601 timestamp with zone, e.g. 2024-01-31T12:00:00Z');
      return iso;
    }
    case 'string_list':
    case 'object':
      throw queryError(path, 'field is not filterable');
  }
}
