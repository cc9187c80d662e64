import { createQueryId } from 'kysely';
import type { Compilable, CompiledQuery, RootOperationNode } from 'kysely';
import type { Db } from '../db/dialect.js';

/** `count` stand-ins for per-call values: new frozen objects, so no caller's value can be mistaken for one. */
function holes(count: number): readonly object[] {
  return Object.freeze(Array.from({ length: count }, (_, hole) => Object.freeze({ hole })));
}

/**
 * A Kysely query compiled once, with holes where each call's values go. Building and
 * compiling a query costs more than SQLite takes to answer a small one
 * (docs/benchmarks-history.md "The booking core"). The SQL is the builder's own output; only the parameters in the holes
 * change between calls.
 */
export class QueryTemplate {
  private constructor(
    /** The operation node as compiled, holes still in it: executing a compiled query reads its SQL and parameters. */
    readonly query: RootOperationNode,
    readonly sql: string,
    private readonly fixed: readonly unknown[],
    /** Where each hole's value goes among the parameters. */
    private readonly slots: readonly number[],
  ) {}

  /**
   * Compiles the query `build` makes with holes in place of its `count` values. `null` when a
   * hole does not appear exactly once among the compiled parameters (Kysely changed or
   * repeated it): the caller then builds the query per call.
   */
  static compile(count: number, build: (values: readonly unknown[]) => Compilable): QueryTemplate | null {
    const placeholders = holes(count);
    const { query, sql, parameters } = build(placeholders).compile();
    const slots = placeholders.map((placeholder) => {
      const at = parameters.indexOf(placeholder);
      return at >= 0 && parameters.lastIndexOf(placeholder) === at ? at : -1;
    });
    if (slots.includes(-1)) return null;
    return new QueryTemplate(query, sql, parameters, slots);
  }

  /** The parameters with `values[i]` in the place of hole `i`. */
  parameters(values: readonly unknown[]): unknown[] {
    const filled = this.fixed.slice();
    for (let i = 0; i < this.slots.length; i += 1) filled[this.slots[i] as number] = values[i];
    return filled;
  }

  /** The compiled query for `values`, ready for `executeQuery`. */
  compiled(values: readonly unknown[]): CompiledQuery {
    return { query: this.query, queryId: createQueryId(), sql: this.sql, parameters: this.parameters(values) };
  }
}

/** A query on a plain connection (no tenant scope): how many values it takes and how it is built from them. */
export interface ConnectionQuery {
  readonly values: number;
  build(db: Db, values: readonly unknown[]): Compilable;
}

/** Templates by connection, then query: object keys, so the hot lookup builds no string. `null`: build per call. */
const connectionTemplates = new WeakMap<Db, WeakMap<ConnectionQuery, QueryTemplate | null>>();

/**
 * `query` with `values`, ready for `db.executeQuery`: filled from its template, compiled
 * once per connection, or built anew where the query cannot have one. A transaction is a
 * connection of its own, so a query run in transactions is better built per call.
 */
export function compiledOn(db: Db, query: ConnectionQuery, values: readonly unknown[]): CompiledQuery {
  let templates = connectionTemplates.get(db);
  if (!templates) connectionTemplates.set(db, (templates = new WeakMap()));
  let template = templates.get(query);
  if (template === undefined) templates.set(query, (template = QueryTemplate.compile(query.values, (holes) => query.build(db, holes))));
  return template ? template.compiled(values) : query.build(db, values).compile();
}
