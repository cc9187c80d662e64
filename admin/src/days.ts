/** Calendar days in a time zone, as `YYYY-MM-DD` (what the availability endpoint takes). */

const isoDay = (timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });

/** The calendar day an instant falls on in `timeZone`. */
export function dayIn(instant: Date | string, timeZone: string): string {
  return isoDay(timeZone).format(typeof instant === 'string' ? new Date(instant) : instant);
}

/** `day` plus `count` calendar days (date arithmetic only: no zone, no daylight saving). */
export function addDays(day: string, count: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + count);
  return date.toISOString().slice(0, 10);
}

/** A day for people: `Thu 2025-06-12`. */
export function dayLabel(day: string): string {
  const weekday = new Intl.DateTimeFormat('en', { weekday: 'short', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
  return `${weekday} ${day}`;
}

/** A short axis label: `12 Jun`. */
export function shortDay(day: string): string {
  return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
}

/** An instant for people, in the product's zone: `12 Jun 2025, 10:00`. */
export function timeIn(instant: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(instant));
}

/** An instant for people, in the browser's own zone: `12 Jun 2025, 10:00`. */
export function localTime(instant: string): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(instant));
}

/** The local dates `[from, to)` of a rate, both ends shown included: `Mon 2030-06-10 – Wed 2030-06-12`. */
export function dateRange(from: string, to: string): string {
  const last = addDays(to, -1);
  return last === from ? dayLabel(from) : `${dayLabel(from)} – ${dayLabel(last)}`;
}

/**
 * What is left of a hold at `now` (ms): `14 min 32 s left`, `1 h 5 min left`, or `expired`
 * once `expiresAt` has passed.
 */
export function holdLeft(expiresAt: string, now: number): string {
  const seconds = Math.floor((Date.parse(expiresAt) - now) / 1000);
  if (!(seconds > 0)) return 'expired';
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours} h ${minutes} min left`;
  return minutes > 0 ? `${minutes} min ${seconds % 60} s left` : `${seconds} s left`;
}

/** The date an instant falls on in `timeZone`, for people: `12 Jun 2025`. */
export function dateIn(instant: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone }).format(new Date(instant));
}
