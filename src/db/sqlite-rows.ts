import type BetterSqlite3 from 'better-sqlite3';

type Row = Record<string, unknown>;

/**
 * A read statement whose row objects are built here from better-sqlite3's raw rows (arrays).
 *
 * Why: on Node 20, better-sqlite3 12 builds each row object through V8's embedder API,
 * interning every column name again for every row (its faster path needs Node 22); arrays
 * plus this loop cost less (docs/benchmarks-history.md "The booking core").
 *
 * The objects are the ones better-sqlite3 makes: its column names in its order, a later
 * column of the same name overwriting an earlier one. The names are read once, since
 * `columns()` costs more than reading a small row, and read again when a row's width
 * disagrees with them (SQLite re-prepared the statement after a schema change added or
 * dropped a column). A change that keeps the width (a renamed column) is not seen here:
 * `openSqlite` drops its prepared statements on every schema statement it runs.
 */
export class RowReader {
  #names: readonly string[];

  constructor(private readonly statement: BetterSqlite3.Statement) {
    if (!statement.reader) throw new TypeError('RowReader needs a statement that returns rows');
    statement.raw(true);
    this.#names = columnNames(statement);
  }

  all(parameters: readonly unknown[]): Row[] {
    const rows = this.statement.all(parameters) as unknown[][];
    const objects: Row[] = new Array<Row>(rows.length);
    for (let i = 0; i < rows.length; i += 1) objects[i] = this.#object(rows[i] as unknown[]);
    return objects;
  }

  get(parameters: readonly unknown[]): Row | undefined {
    const row = this.statement.get(parameters) as unknown[] | undefined;
    return row === undefined ? undefined : this.#object(row);
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<Row> {
    for (const row of this.statement.iterate(parameters) as IterableIterator<unknown[]>) yield this.#object(row);
  }

  #object(values: readonly unknown[]): Row {
    if (values.length !== this.#names.length) this.#names = columnNames(this.statement);
    const names = this.#names;
    const row: Row = {};
    for (let i = 0; i < names.length; i += 1) row[names[i] as string] = values[i];
    return row;
  }
}

function columnNames(statement: BetterSqlite3.Statement): string[] {
  return statement.columns().map((column) => column.name);
}
