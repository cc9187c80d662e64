import ts from 'typescript';

/** Kysely methods that name the table they touch. */
const tableMethods = new Set(['selectFrom', 'updateTable', 'deleteFrom', 'insertInto']);

export interface UnscopedQuery {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  /** The table named, when it is a literal (a computed name could be any table). */
  readonly table?: string;
}

/**
 * Calls that touch a resource table without the scoped builders: `.selectFrom(...)` and its
 * siblings whose table is a resource table's literal name, or not a literal at all (a
 * table name computed at run time could be any resource's).
 */
export function findUnscopedQueries(file: string, source: string, resourceTables: ReadonlySet<string>): UnscopedQuery[] {
  const found: UnscopedQuery[] = [];
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && tableMethods.has(node.expression.name.text)) {
      const [table] = node.arguments;
      const literal = table && (ts.isStringLiteral(table) || ts.isNoSubstitutionTemplateLiteral(table)) ? table.text.split(/\s+as\s+/i)[0]?.trim() : undefined;
      if (literal === undefined || resourceTables.has(literal)) {
        const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart());
        found.push({ file, line: line + 1, text: node.getText().split('\n')[0]?.slice(0, 120) ?? '', ...(literal === undefined ? {} : { table: literal }) });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}
