import type { FieldType } from '../registry/types.js';
import type { FilterScalar } from './filter-ast.js';
import { MAX_FILTER_STRING_LENGTH } from './limits.js';
import { filterInteger } from './filter-integer.js';
import { parseTimestamp } from '../core/parse-timestamp.js';
import { queryError } from './query-error.js';

const integerText = /^-?\d+$/;
// JSON number syntax: no hex, no `Infinity`, no leading `+`, no bare `.5` or `5.`.
const decimalText = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Converts a query-parameter string to the field's API type. Only exact textual forms
 * are accepted (`Number()` alone would take `""`, `" 1 "`, `0x10`), so a typo is a 400
 * rather than a silently different filter.
 */
export function queryScalar(type: FieldType, text: string, path: string): FilterScalar {
  switch (type) {
    case 'string':
    case 'reference':
      if (text.length > MAX_FILTER_STRING_LENGTH) throw queryError(path, `longer than ${MAX_FILTER_STRING_LENGTH} characters`);
      return text;
    case 'integer': {
      const value = integerText.test(text) ? Number(text) : Number.NaN;
      return filterInteger(value, path);
    }
    case 'number': {
      const value = decimalText.test(text) ? Number(text) : Number.NaN;
      if (!Number.isFinite(value)) throw queryError(path, 'must be a finite decimal number');
      return value;
    }
    case 'boolean':
      if (text === 'true') return true;
      if (text === 'false') return false;
      throw queryError(path, 'must be true or false');
    case 'timestamp': {
      const iso = parseTimestamp(text);
      if (iso === undefined) throw queryError(path, 'must be an ISO 8601 timestamp with zone, e.g. 2024-01-31T12:00:00Z');
      return iso;
    }
    case 'string_list':
    case 'object':
      throw queryError(path, 'field is not filterable');
  }
}
