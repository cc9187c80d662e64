import type { FieldDef, FieldType, FieldOperator } from '../registry/types.js';
import { blockedOperators } from './blocked-operators.js';
import { checkRegex } from './check-regex.js';
import type { ConditionBudget } from './condition-budget.js';
import { isFieldOperator, operatorAllowed } from './field-operators.js';
import type { Condition, FilterNode } from './filter-ast.js';
import { combine } from './filter-ast.js';
import type { JsonObject } from './json-object.js';
import { isJsonObject } from './json-object.js';
import { jsonScalar } from './json-scalar.js';
import { MAX_FILTER_DEPTH, MAX_IN_ITEMS } from './limits.js';
import { indexPath, keyPath, queryError, quoteName } from './query-error.js';

/**
 * An operator object of one field in `where` (`{ "$gte": 1, "$lt": 9 }`), its operators
 * combined with AND. `$not` negates a nested operator object; `$options` only qualifies
 * `$regex`. Keys without `$` are refused: records have no nested documents to match.
 *
 * @throws ApiError `validation_failed` (400)
 */
export function parseFieldOperators(field: string, def: FieldDef, operators: JsonObject, path: string, depth: number, budget: ConditionBudget): FilterNode {
  const entries = Object.entries(operators);
  if (entries.length === 0) throw queryError(path, 'empty operator object');
  const caseInsensitive = regexOptions(operators, path);
  const children: FilterNode[] = [];
  for (const [key, value] of entries) {
    const at = keyPath(path, key);
    if (!key.startsWith('$')) throw queryError(at, 'expected an operator such as $eq (nested documents are not supported)');
    if (key === '$options') continue;
    if (key === '$not') {
      if (depth >= MAX_FILTER_DEPTH) throw queryError(at, `logical operators nested deeper than ${MAX_FILTER_DEPTH} levels`);
      if (!isJsonObject(value)) throw queryError(at, '$not takes an operator object');
      children.push({ kind: 'not', child: parseFieldOperators(field, def, value, at, depth + 1, budget) });
      continue;
    }
    if (blockedOperators.has(key)) throw queryError(at, `blocked operator ${key}`);
    if (!isFieldOperator(key)) throw queryError(at, `unknown operator ${quoteName(key)}`);
    if (!operatorAllowed(def.type, key)) throw queryError(at, `operator ${key} is not allowed on a ${def.type} field`);
    budget.take(at);
    children.push(operatorCondition(field, def.type, key, value, at, caseInsensitive));
  }
  return combine('and', children);
}

/** `$options` next to `$regex`: `""` or `"i"`; anything else is refused. */
function regexOptions(operators: JsonObject, path: string): boolean {
  if (!Object.hasOwn(operators, '$options')) return false;
  const at = keyPath(path, '$options');
  if (!Object.hasOwn(operators, '$regex')) throw queryError(at, '$options is only valid next to $regex');
  const options = operators['$options'];
  if (options !== '' && options !== 'i') throw queryError(at, 'only "" and "i" (case-insensitive) are supported');
  return options === 'i';
}

function operatorCondition(field: string, type: FieldType, op: FieldOperator, value: unknown, path: string, caseInsensitive: boolean): Condition {
  switch (op) {
    case '$eq':
    case '$ne':
      return { kind: 'cmp', field, op, value: value === null ? null : jsonScalar(type, value, path) };
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return { kind: 'cmp', field, op, value: jsonScalar(type, value, path) };
    case '$in':
    case '$nin': {
      if (!Array.isArray(value)) throw queryError(path, `${op} takes an array`);
      if (value.length > MAX_IN_ITEMS) throw queryError(path, `more than ${MAX_IN_ITEMS} items`);
      const items = value.map((item: unknown, index) => jsonScalar(type, item, indexPath(path, index)));
      return { kind: 'cmp', field, op, value: items };
    }
    case '$exists':
      if (typeof value !== 'boolean') throw queryError(path, 'must be true or false');
      return { kind: 'cmp', field, op, value };
    case '$regex':
      if (typeof value !== 'string') throw queryError(path, 'must be a string');
      checkRegex(value, caseInsensitive, path);
      return { kind: 'cmp', field, op, value, caseInsensitive };
  }
}
