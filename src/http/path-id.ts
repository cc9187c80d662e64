import { notFound } from './errors.js';

/** Control characters never occur in record ids; NUL would even make PostgreSQL fail. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * The `{id}` of a record path, or a 404 when it cannot name any record. Such ids are
 * answered like any unknown id, without a database round trip.
 *
 * @throws ApiError `not_found` (404)
 */
export function pathId(raw: string, resource: string): string {
  if (raw === '' || hasControlCharacter(raw)) throw notFound(resource);
  return raw;
}
