/**
 * Narrows records to the fields a list query selected (`fields`, from `parse-fields.ts`,
 * which always includes `_id`), in place: the records are the request's own. Without
 * `fields` they stay whole.
 */
export function keepFields(records: readonly Record<string, unknown>[], fields: readonly string[] | null | undefined): void {
  if (!fields) return;
  const keep = new Set(fields);
  for (const record of records) for (const key of Object.keys(record)) if (!keep.has(key)) delete record[key];
}
