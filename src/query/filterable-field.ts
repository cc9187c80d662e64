import type { FieldDef, ResourceDef } from '../registry/types.js';

/**
 * The definition of `name` when clients may filter on it, else `undefined`. Unknown,
 * non-filterable, write-only and sensitive fields are indistinguishable to the caller, so
 * a filter cannot probe which sensitive fields exist; computed fields have no column.
 * `Object.hasOwn` keeps names such as `__proto__` or `constructor` from resolving to
 * inherited properties.
 */
export function filterableField(resource: ResourceDef, name: string): FieldDef | undefined {
  if (!Object.hasOwn(resource.fields, name)) return undefined;
  const def = resource.fields[name];
  if (!def || def.filterable !== true || def.writeOnly === true || def.sensitive === true || def.computed === true) {
    return undefined;
  }
  if (def.type === 'string_list' || def.type === 'object') return undefined;
  return def;
}
