import type { FieldDef, ResourceDef } from '../registry/types.js';
import { blockedOperators } from './blocked-operators.js';
import { filterableField } from './filterable-field.js';
import type { FilterNode } from './filter-ast.js';
import { combine } from './filter-ast.js';
import { isJsonObject } from './json-object.js';
import type { JsonObject } from './json-object.js';
import { jsonScalar } from './json-scalar.js';
import { MAX_FILTER_DEPTH, MAX_WHERE_LENGTH } from './limits.js';
import { parseFieldOperators } from './parse-field-operators.js';
import type { ConditionBudget } from './condition-budget.js';
import { conditionBudget } from './condition-budget.js';
import { indexPath, keyPath, queryError, quoteName } from './query-error.js';

const ROOT = 'where';

/**
 * Parses the URL-decoded `where` parameter, a Mongo-style JSON filter, into a checked
 * filter tree. Only the documented operators are understood; blocked (`$where`, `$expr`,
 * `$function`) and unknown operators, unknown or non-filterable fields and ill-typed values
 * are refused with a 400 naming their path (`where.$or[1].city.$gt`). `{}` yields an empty
 * AND, which matches every row. Nesting and condition count are bounded before any deeper
 * level is visited, so hostile input costs at most a few bounded passes.
 *
 * @throws ApiError `validation_failed` (400)
 */
export function parseWhere(resource: ResourceDef, raw: string): FilterNode {
  if (raw.length > MAX_WHERE_LENGTH) throw queryError(ROOT, `longer than ${MAX_WHERE_LENGTH} characters`);
  const parsed = parseJson(raw);
  if (!isJsonObject(parsed)) throw queryError(ROOT, 'must be a JSON object');
  if (Object.keys(parsed).length === 0) return { kind: 'and', children: [] };
  return parseFilter(resource, parsed, ROOT, 0, conditionBudget());
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    // SyntaxError, or RangeError on absurd nesting: either way the client sent bad JSON.
    // The parser's own message is not echoed: it may quote large parts of the input.
    throw queryError(ROOT, 'not valid JSON');
  }
}

/** A filter object: field conditions and logical operators, combined with AND. */
function parseFilter(resource: ResourceDef, filter: JsonObject, path: string, depth: number, budget: ConditionBudget): FilterNode {
  const entries = Object.entries(filter);
  if (entries.length === 0) throw queryError(path, 'empty filter object');
  const children = entries.map(([key, value]) => {
    const at = keyPath(path, key);
    if (key.startsWith('$')) return parseLogical(resource, key, value, at, depth, budget);
    const def = filterableField(resource, key);
    if (!def) throw queryError(at, 'unknown or non-filterable field');
    return parseFieldValue(key, def, value, at, depth, budget);
  });
  return combine('and', children);
}

function parseLogical(resource: ResourceDef, key: string, value: unknown, path: string, depth: number, budget: ConditionBudget): FilterNode {
  if (blockedOperators.has(key)) throw queryError(path, `blocked operator ${key}`);
  if (key !== '$and' && key !== '$or' && key !== '$not') throw queryError(path, `unknown operator ${quoteName(key)}`);
  if (depth >= MAX_FILTER_DEPTH) throw queryError(path, `logical operators nested deeper than ${MAX_FILTER_DEPTH} levels`);
  if (key === '$not') {
    if (!isJsonObject(value)) throw queryError(path, '$not takes a filter object');
    return { kind: 'not', child: parseFilter(resource, value, path, depth + 1, budget) };
  }
  if (!Array.isArray(value) || value.length === 0) throw queryError(path, `${key} takes a non-empty array of filter objects`);
  const children = value.map((item: unknown, index) => {
    const at = indexPath(path, index);
    if (!isJsonObject(item)) throw queryError(at, 'must be a filter object');
    return parseFilter(resource, item, at, depth + 1, budget);
  });
  return { kind: key === '$and' ? 'and' : 'or', children };
}

/** The value of a field key: a scalar or `null` (equality) or an operator object. */
function parseFieldValue(field: string, def: FieldDef, value: unknown, path: string, depth: number, budget: ConditionBudget): FilterNode {
  if (isJsonObject(value)) return parseFieldOperators(field, def, value, path, depth, budget);
  if (Array.isArray(value)) throw queryError(path, 'an array is only valid as the value of $in or $nin');
  budget.take(path);
  return { kind: 'cmp', field, op: '$eq', value: value === null ? null : jsonScalar(def.type, value, path) };
}
