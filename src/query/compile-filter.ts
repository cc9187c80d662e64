import { sql } from 'kysely';
import type { Expression, RawBuilder, SqlBool } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { FieldType, ResourceDef } from '../registry/types.js';
import { columnRef } from './column-ref.js';
import type { CompileOptions } from './column-ref.js';
import type { Condition, FilterNode } from './filter-ast.js';
import { portablePattern } from './portable-regex.js';

export { compileSort } from './compile-sort.js';
export type { CompileOptions } from './column-ref.js';

const alwaysTrue = sql<SqlBool>`1 = 1`;
const alwaysFalse = sql<SqlBool>`1 = 0`;

/**
 * Compiles a checked filter tree into a Kysely boolean expression with Mongo semantics,
 * identical on SQLite and PostgreSQL:
 * - `$ne` / `$nin` also match NULL (a missing value is "not equal");
 * - `$eq null` / `$ne null` mean IS NULL / IS NOT NULL;
 * - `not` is `(child) IS NOT TRUE`, so rows where the inner filter is unknown count as
 *   not matching it;
 * - `$regex` patterns are rewritten so that RE2 and PostgreSQL read them alike (see
 *   `portablePattern`).
 * Every value goes through `dialect.toDb` into a bound parameter; column names come from
 * the registry only.
 */
export function compileFilter(node: FilterNode, resource: ResourceDef, dialect: SqlDialect, options: CompileOptions = {}): Expression<SqlBool> {
  return compileNode(node, resource, dialect, options);
}

function compileNode(node: FilterNode, resource: ResourceDef, dialect: SqlDialect, options: CompileOptions): RawBuilder<SqlBool> {
  switch (node.kind) {
    case 'and':
    case 'or': {
      // Empty lists are the identities of AND / OR.
      if (node.children.length === 0) return node.kind === 'and' ? alwaysTrue : alwaysFalse;
      const parts = node.children.map((child) => compileNode(child, resource, dialect, options));
      return sql<SqlBool>`(${sql.join(parts, node.kind === 'and' ? sql` and ` : sql` or `)})`;
    }
    case 'not':
      return sql<SqlBool>`((${compileNode(node.child, resource, dialect, options)}) is not true)`;
    case 'cmp':
      return compileCondition(node, resource, dialect, options);
  }
}

function compileCondition(node: Condition, resource: ResourceDef, dialect: SqlDialect, options: CompileOptions): RawBuilder<SqlBool> {
  const { def, column } = columnRef(resource, node.field, options);
  const param = (value: unknown): RawBuilder<unknown> => bind(dialect, def.type, value);
  switch (node.op) {
    case '$eq':
      return node.value === null ? sql<SqlBool>`${column} is null` : sql<SqlBool>`${column} = ${param(node.value)}`;
    case '$ne':
      return node.value === null ? sql<SqlBool>`${column} is not null` : sql<SqlBool>`(${column} is null or ${column} <> ${param(node.value)})`;
    case '$gt':
      return sql<SqlBool>`${column} > ${param(node.value)}`;
    case '$gte':
      return sql<SqlBool>`${column} >= ${param(node.value)}`;
    case '$lt':
      return sql<SqlBool>`${column} < ${param(node.value)}`;
    case '$lte':
      return sql<SqlBool>`${column} <= ${param(node.value)}`;
    case '$in':
      if (node.value.length === 0) return alwaysFalse;
      return sql<SqlBool>`${column} in (${sql.join(node.value.map(param))})`;
    case '$nin':
      if (node.value.length === 0) return alwaysTrue;
      return sql<SqlBool>`(${column} is null or ${column} not in (${sql.join(node.value.map(param))}))`;
    case '$exists':
      return node.value ? sql<SqlBool>`${column} is not null` : sql<SqlBool>`${column} is null`;
    case '$regex':
      return dialect.regexMatch(column, portablePattern(node.value), node.caseInsensitive);
  }
}

/** A bound parameter in the stored form; `sql.val` never lets a value become SQL text. */
function bind(dialect: SqlDialect, type: FieldType, value: unknown): RawBuilder<unknown> {
  return sql.val(dialect.toDb(type, value));
}
