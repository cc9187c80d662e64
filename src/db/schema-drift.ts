import type { Database } from './dialect.js';
import { resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import { expectedTable } from './schema.js';

/**
 * Where the migrated database and the registry disagree, one sentence each, naming the fix.
 * Migrations are frozen data (see `migration-kit.ts`), so a field added to the registry
 * without a migration shows up here, on fresh and upgraded databases alike.
 */
export async function schemaDrift(database: Database, registry: readonly ResourceDef[] = resources): Promise<string[]> {
  const { db, dialect } = database;
  const tables = new Map((await db.introspection.getTables()).map((table) => [table.name, table]));
  const problems: string[] = [];
  for (const resource of registry) {
    const expected = expectedTable(resource);
    const table = tables.get(expected.table);
    if (!table) {
      problems.push(`resource ${resource.name}: table ${expected.table} does not exist; add a migration that creates it`);
      continue;
    }
    const actual = new Map(table.columns.map((column) => [column.name, column.dataType.toLowerCase()]));
    for (const [name, type] of expected.columns) {
      const found = actual.get(name);
      if (found === undefined) problems.push(`resource ${resource.name}: field ${name} (${type}) has no column ${expected.table}.${name}; add a migration (addColumns) for it`);
      else if (found !== dialect.introspectedType(type))
        problems.push(
          `resource ${resource.name}: column ${expected.table}.${name} is ${found} but the registry declares ${type} (${dialect.introspectedType(type)}); add a migration that converts it`,
        );
    }
    for (const name of actual.keys()) {
      if (!expected.columns.has(name)) problems.push(`resource ${resource.name}: column ${expected.table}.${name} is not in the registry; declare the field or add a migration that drops the column`);
    }
    const indexes = new Set(await dialect.listIndexes(db, expected.table));
    for (const name of expected.indexes) {
      if (!indexes.has(name)) problems.push(`resource ${resource.name}: index ${name} (from a sortable, reference or composite-index declaration) is missing; add a migration that creates it`);
    }
  }
  return problems;
}

/** Fails with every difference listed when the schema does not match the registry (boot check). */
export async function assertSchemaMatchesRegistry(database: Database): Promise<void> {
  const problems = await schemaDrift(database);
  if (problems.length > 0) throw new Error(`the database schema does not match the resource registry:\n  - ${problems.join('\n  - ')}`);
}
