import { parseTimestamp } from './parse-timestamp.js';

/**
 * Normalises an ISO 8601 timestamp with a zone to `YYYY-MM-DDTHH:mm:ss.sssZ`, the one form
 * stored (it sorts lexically on SQLite); `undefined` for anything else. Bodies and filters
 * share one parser, so a value a filter accepts is exactly a value a body may store, and
 * impossible dates (`2026-02-31`, with or without an offset) are refused, not rolled over.
 */
export function normaliseTimestamp(text: string): string | undefined {
  return parseTimestamp(text);
}
