/**
 * The parsed form of a list filter, shared by the `where` parser, the query-parameter
 * parser and the SQL compiler. Values are already checked and converted to the field's
 * API type, so the compiler never sees client text it has not validated.
 */
import type { FieldOperator } from '../registry/types.js';

/** A single comparable value in its API type (timestamps as normalised ISO strings). */
export type FilterScalar = string | number | boolean;

/** `$eq` / `$ne`; `null` means "the field is NULL" (Mongo's missing-or-null). */
export interface EqualityCondition {
  readonly kind: 'cmp';
  readonly field: string;
  readonly op: '$eq' | '$ne';
  readonly value: FilterScalar | null;
}

/** Ordering comparisons. */
export interface RangeCondition {
  readonly kind: 'cmp';
  readonly field: string;
  readonly op: '$gt' | '$gte' | '$lt' | '$lte';
  readonly value: FilterScalar;
}

/** Membership; an empty list is allowed and matches nothing (`$in`) or everything (`$nin`). */
export interface ListCondition {
  readonly kind: 'cmp';
  readonly field: string;
  readonly op: '$in' | '$nin';
  readonly value: readonly FilterScalar[];
}

/** `true`: the field is not NULL; `false`: it is NULL. */
export interface ExistsCondition {
  readonly kind: 'cmp';
  readonly field: string;
  readonly op: '$exists';
  readonly value: boolean;
}

/** An RE2 pattern, already compiled once to prove it is valid and linear-time. */
export interface RegexCondition {
  readonly kind: 'cmp';
  readonly field: string;
  readonly op: '$regex';
  readonly value: string;
  readonly caseInsensitive: boolean;
}

/** One comparison of a field against a value. */
export type Condition = EqualityCondition | RangeCondition | ListCondition | ExistsCondition | RegexCondition;

/** Conjunction or disjunction of sub-filters. */
export interface LogicalNode {
  readonly kind: 'and' | 'or';
  readonly children: readonly FilterNode[];
}

/** Negation; a row whose inner filter is unknown (NULL) counts as not matching it. */
export interface NotNode {
  readonly kind: 'not';
  readonly child: FilterNode;
}

/** Any node of a filter tree. */
export type FilterNode = LogicalNode | NotNode | Condition;

// Compile-time check that the AST operators are exactly the registry's operator list.
type AstOperator = Condition['op'];
const sameOperators: [AstOperator, FieldOperator] extends [FieldOperator, AstOperator] ? true : never = true;
void sameOperators;

/** Combines nodes with `kind`, avoiding a needless wrapper around a single child. */
export function combine(kind: 'and' | 'or', children: readonly FilterNode[]): FilterNode {
  const [only] = children;
  return children.length === 1 && only ? only : { kind, children };
}

/** Number of comparisons in a tree (iterative, so any depth is safe). */
export function countConditions(root: FilterNode): number {
  let count = 0;
  const stack: FilterNode[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.kind === 'cmp') count += 1;
    else if (node.kind === 'not') stack.push(node.child);
    else stack.push(...node.children);
  }
  return count;
}
