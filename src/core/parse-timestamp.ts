/**
 * Strict ISO 8601 date-time with seconds and an explicit zone (`Z` or `±HH:MM`), optional
 * fraction. Looser forms that `Date` happens to accept (`2024-01-01 10:00`, RFC 2822,
 * local time) are refused so that every client gets the same answer.
 */
const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

const MIN_YEAR = 1000;
const MAX_YEAR = 9999;

/**
 * The normalised UTC form (`YYYY-MM-DDTHH:mm:ss.sssZ`) of a strict ISO 8601 timestamp,
 * or `undefined` when `text` is not one. Impossible dates (`2024-02-30`) are refused
 * rather than rolled over as `Date` would.
 */
export function parseTimestamp(text: string): string | undefined {
  const match = isoDateTime.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = Number(match[7] ?? 0);
  const offsetMinutes = Number(match[8] ?? 0);
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1) return undefined;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const time = Date.parse(text);
  if (!Number.isFinite(time)) return undefined;
  const normalised = new Date(time);
  // An offset can move the instant across the year range (9999-12-31T23:00:00-02:00).
  const utcYear = normalised.getUTCFullYear();
  if (utcYear < MIN_YEAR || utcYear > MAX_YEAR) return undefined;
  return normalised.toISOString();
}
