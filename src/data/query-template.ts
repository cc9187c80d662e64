import { createQueryId } from 'kysely';
import type { Compilable, CompiledQuery, RootOperationNode } from 'kysely';

/** `count` stand-ins for per-call values: new frozen objects, so no caller's value can be mistaken for one. */
function holes(count: number): readonly object[] {
  return Object.freeze(Array.from({ length: count }, (_, hole) => Object.freeze({ hole })));
}

/**
 * A Kysely query compiled once, with holes where each call's values go. Building and
 * compiling a query costs more than SQLite takes to answer a small one: for a product's
 * availability, a fifth of the request's CPU. The SQL is the builder's own output; only
 * the parameters in the holes change between calls.
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
