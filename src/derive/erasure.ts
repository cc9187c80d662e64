import { erasureAction } from '../registry/erasure-rule.js';
import type { ResourceDef } from '../registry/types.js';

/** The fixed marker a redacted field holds after erasure. */
export const redactedValue = '[erased]';

/**
 * The changes that depersonalise a record: each field whose erasure rule is not `keep`,
 * replaced by null or the marker, only where the stored value still differs (so erasing
 * twice changes nothing).
 */
export function erasureChanges(resource: ResourceDef, record: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const name of resource.fieldNames) {
    const field = resource.fields[name];
    if (!field || field.computed === true || field.writeOnly === true || field.serverOwned === true) continue;
    const action = erasureAction(field);
    if (action === 'keep') continue;
    const replacement = action === 'null' ? null : redactedValue;
    if (name in record && record[name] !== replacement && !(action === 'null' && record[name] === undefined)) changes[name] = replacement;
  }
  return changes;
}

/** Whether a resource holds any field erasure changes. */
export function hasPersonalFields(resource: ResourceDef): boolean {
  return resource.fieldNames.some((name) => {
    const field = resource.fields[name];
    return field !== undefined && !field.computed && !field.writeOnly && !field.serverOwned && erasureAction(field) !== 'keep';
  });
}
