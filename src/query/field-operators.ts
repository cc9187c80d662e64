import type { FieldOperator, FieldType } from '../registry/types.js';

const comparable: readonly FieldOperator[] = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists'];

/**
 * Operators each filterable field type supports. Strings and references also match
 * regular expressions; booleans have no order worth comparing; lists and objects are
 * never filterable.
 */
const byType: Readonly<Record<FieldType, ReadonlySet<FieldOperator>>> = {
  string: new Set([...comparable, '$regex']),
  reference: new Set([...comparable, '$regex']),
  integer: new Set(comparable),
  number: new Set(comparable),
  timestamp: new Set(comparable),
  boolean: new Set(['$eq', '$ne', '$exists']),
  string_list: new Set(),
  object: new Set(),
};

/** Every operator of the language, for recognising names before the per-type check. */
export const fieldOperators: ReadonlySet<string> = new Set<string>([...comparable, '$regex']);

/** Whether `name` is one of the field operators (`$eq` … `$regex`). */
export function isFieldOperator(name: string): name is FieldOperator {
  return fieldOperators.has(name);
}

/** Whether a field of `type` may be filtered with `op`. */
export function operatorAllowed(type: FieldType, op: FieldOperator): boolean {
  return byType[type].has(op);
}
