import { parseTimestamp } from './parse-timestamp.js';

/**
 * One end of an availability range as the caller wrote it: a calendar date, which means
 * local midnight in each product's own time zone, or an absolute instant.
 */
export type RangeBound = { readonly date: number } | { readonly instant: number };

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date (`2030-03-31`, UTC midnight) or an ISO 8601 timestamp with a zone; `undefined` for anything else. */
export function parseBound(text: string): RangeBound | undefined {
  const date = isoDate.exec(text);
  if (date) {
    const [year, month, day] = date.slice(1, 4).map(Number) as [number, number, number];
    const at = Date.UTC(year, month - 1, day);
    const valid = year >= 1000 && new Date(at).getUTCMonth() === month - 1 && new Date(at).getUTCDate() === day;
    return valid ? { date: at } : undefined;
  }
  const timestamp = parseTimestamp(text);
  return timestamp === undefined ? undefined : { instant: Date.parse(timestamp) };
}

/** Whether `text` is a range bound: a calendar date or an ISO 8601 timestamp with a zone (the `date-or-date-time` format). */
export function isRangeBound(text: string): boolean {
  return parseBound(text) !== undefined;
}
