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
