const isoPattern = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Normalises an ISO 8601 timestamp with a zone to `YYYY-MM-DDTHH:mm:ss.sssZ`, the one form
 * stored (it sorts lexically on SQLite); `undefined` for anything else.
 */
export function normaliseTimestamp(text: string): string | undefined {
  const match = isoPattern.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[];
  if (year === undefined || year < 1000 || year > 9999) return undefined;
  if (month! < 1 || month! > 12 || day! < 1 || day! > 31 || hour! > 23 || minute! > 59 || second! > 59) return undefined;
  const time = Date.parse(text);
  if (Number.isNaN(time)) return undefined;
  const iso = new Date(time).toISOString();
  // Date.parse rolls 2026-02-31 over to March; refuse instead.
  if (match[8] === 'Z' && iso.slice(0, 10) !== text.slice(0, 10)) return undefined;
  return iso.length === 24 ? iso : undefined;
}
