import type { FieldDef, FieldOperator, ResourceDef } from '../registry/types.js';
import { checkRegex } from './check-regex.js';
import { conditionBudget } from './condition-budget.js';
import { operatorAllowed } from './field-operators.js';
import { filterableField } from './filterable-field.js';
import type { Condition } from './filter-ast.js';
import { MAX_IN_ITEMS } from './limits.js';
import { listParameters } from './list-query.js';
import type { QueryString } from './list-query.js';
import { queryError } from './query-error.js';
import { queryScalar } from './query-scalar.js';

/** Suffixes of `<field>__<op>`; equality is the bare field name. */
const suffixOperators: ReadonlyMap<string, FieldOperator> = new Map([
  ['gt', '$gt'],
  ['gte', '$gte'],
  ['lt', '$lt'],
  ['lte', '$lte'],
  ['ne', '$ne'],
  ['in', '$in'],
  ['nin', '$nin'],
  ['exists', '$exists'],
  ['regex', '$regex'],
]);

const MAX_NAME_IN_ERROR = 64;

interface Target {
  readonly field: string;
  readonly def: FieldDef;
  readonly op: FieldOperator;
}

/**
 * Turns `<field>=<v>` and `<field>__<op>=<v>` query parameters into conditions (combined
 * with AND by the caller). Values are converted by the field's declared type. Every
 * parameter that is not in `reserved` (nor one of `where page per_page sort fields`) must
 * be such a filter: unknown names — including `city[$ne]`, which is a literal name here,
 * never an operator — and repeated parameters are refused.
 *
 * @throws ApiError `validation_failed` (400) naming the parameter
 */
export function parseQueryFilters(resource: ResourceDef, query: QueryString, reserved: ReadonlySet<string>): Condition[] {
  const budget = conditionBudget();
  const conditions: Condition[] = [];
  for (const [name, raw] of Object.entries(query)) {
    if (raw === undefined || reserved.has(name) || listParameters.has(name)) continue;
    const path = name.length > MAX_NAME_IN_ERROR ? `${name.slice(0, MAX_NAME_IN_ERROR)}…` : name;
    const target = resolve(resource, name);
    if (!target) throw queryError(path, 'unknown query parameter or non-filterable field');
    if (typeof raw !== 'string') throw queryError(path, 'given more than once');
    if (!operatorAllowed(target.def.type, target.op)) {
      throw queryError(path, `operator ${target.op} is not allowed on a ${target.def.type} field`);
    }
    budget.take(path);
    conditions.push(condition(target, raw, path));
  }
  return conditions;
}

/** The field and operator a parameter name denotes, if any. */
function resolve(resource: ResourceDef, name: string): Target | undefined {
  const plain = filterableField(resource, name);
  if (plain) return { field: name, def: plain, op: '$eq' };
  const split = name.lastIndexOf('__');
  if (split <= 0) return undefined;
  const op = suffixOperators.get(name.slice(split + 2));
  const field = name.slice(0, split);
  const def = filterableField(resource, field);
  return op && def ? { field, def, op } : undefined;
}

function condition({ field, def, op }: Target, text: string, path: string): Condition {
  switch (op) {
    case '$eq':
    case '$ne':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return { kind: 'cmp', field, op, value: queryScalar(def.type, text, path) };
    case '$in':
    case '$nin': {
      // The split is bounded so a huge list costs no more than a refused one.
      const items = text.split(',', MAX_IN_ITEMS + 1);
      if (items.length > MAX_IN_ITEMS) throw queryError(path, `more than ${MAX_IN_ITEMS} items`);
      if (items.includes('')) throw queryError(path, 'empty list item (use a comma-separated list of values)');
      return { kind: 'cmp', field, op, value: items.map((item) => queryScalar(def.type, item, path)) };
    }
    case '$exists':
      if (text !== 'true' && text !== 'false') throw queryError(path, 'must be true or false');
      return { kind: 'cmp', field, op, value: text === 'true' };
    case '$regex':
      checkRegex(text, false, path);
      return { kind: 'cmp', field, op, value: text, caseInsensitive: false };
  }
}
