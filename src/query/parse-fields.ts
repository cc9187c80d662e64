import type { ResourceDef } from '../registry/types.js';
import { queryError, quoteName } from './query-error.js';

const PATH = 'fields';
const ALWAYS = '_id';

/**
 * The `fields` parameter: comma-separated names of existing, readable fields, returned with
 * `_id` first (it is always included) and duplicates dropped; `null` when absent (all
 * fields). Sensitive fields are accepted here because their capability check happens where
 * records are shaped, which must answer the same for `fields` and for full records.
 * `computed` names what the endpoint adds to every item itself (the availability search's
 * `available`): accepted, and left out of the columns.
 *
 * @throws ApiError `validation_failed` (400) on field `fields`
 */
export function parseFields(resource: ResourceDef, text: string | undefined, computed: readonly string[] = []): string[] | null {
  if (text === undefined) return null;
  // Bounded split: the list can never usefully be longer than the resource's fields.
  const most = resource.fieldNames.length + computed.length;
  const items = text.split(',', most + 1);
  if (items.length > most) throw queryError(PATH, 'more names than the resource has fields');
  const fields = new Set<string>([ALWAYS]);
  for (const name of items) {
    if (name === '') throw queryError(PATH, 'empty field name');
    if (computed.includes(name)) continue;
    if (!Object.hasOwn(resource.fields, name) || resource.fields[name]?.writeOnly === true) {
      throw queryError(PATH, `unknown field ${quoteName(name)}`);
    }
    fields.add(name);
  }
  return [...fields];
}
