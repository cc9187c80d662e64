import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { FieldDef, ResourceDef } from '../registry/types.js';

/** Options shared by the filter and sort compilers. */
export interface CompileOptions {
  /** Table name or alias to qualify columns with, for queries that join other tables. */
  readonly qualifier?: string;
}

/**
 * The registry definition of `field` and a quoted reference to its column. Column names
 * only ever come from the registry (a field's name is its column's name); a name the
 * registry does not know is a programming error, since parsers have refused it already.
 */
export function columnRef(resource: ResourceDef, field: string, options: CompileOptions): { def: FieldDef; column: RawBuilder<unknown> } {
  const def = Object.hasOwn(resource.fields, field) ? resource.fields[field] : undefined;
  if (!def || def.writeOnly === true || def.computed === true) {
    throw new Error(`${resource.name} has no column for field ${JSON.stringify(field)}`);
  }
  const column = sql.ref(options.qualifier === undefined ? field : `${options.qualifier}.${field}`);
  return { def, column };
}
