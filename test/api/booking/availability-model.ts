/**
 * A brute-force model of availability (docs/availability.md), written without the service's
 * slot or occupancy code: local days and hours come from scanning a zone minute by minute
 * with `Intl`, and units held are counted at every instant where they can change.
 */

/** A booking as the model holds it: a half-open interval of UTC milliseconds. */
export interface HeldBooking {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
}

const minute = 60_000;
const formats = new Map<string, Intl.DateTimeFormat>();

/** The local calendar date (`YYYY-MM-DD`) and clock hour, with its offset, of `at` in `zone`. */
function local(zone: string, at: number): { readonly date: string; readonly hour: string } {
  let format = formats.get(zone);
  if (!format) {
    const fields = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23', timeZoneName: 'longOffset' } as const;
    format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, ...fields });
    formats.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(at).map(({ type, value }) => [type, value]));
  const date = `${part['year']}-${part['month']}-${part['day']}`;
  // The offset tells the two 02:00 hours of a 25-hour day apart.
  return { date, hour: `${date}T${part['hour']} ${part['timeZoneName']}` };
}

/** Where local days and local clock hours begin in a zone, over a span of UTC time. */
export interface ZoneBoundaries {
  readonly days: readonly number[];
  readonly hours: readonly number[];
  /** Local date → the first instant that has it. */
  readonly dayStart: ReadonlyMap<string, number>;
}

/**
 * Every instant in `[from, to)` (whole UTC minutes) where the local date or the local clock
 * hour changes: every zone rule of the years tested moves clocks at a whole minute.
 */
export function zoneBoundaries(zone: string, from: number, to: number): ZoneBoundaries {
  const days: number[] = [];
  const hours: number[] = [];
  const dayStart = new Map<string, number>();
  let previous = local(zone, from - minute);
  for (let at = from; at < to; at += minute) {
    const now = local(zone, at);
    if (now.date !== previous.date) {
      days.push(at);
      dayStart.set(now.date, at);
    }
    if (now.hour !== previous.hour) hours.push(at);
    previous = now;
  }
  return { days, hours, dayStart };
}

/** Units held at instant `at`. */
function heldAt(bookings: readonly HeldBooking[], at: number): number {
  return bookings.reduce((sum, b) => (b.start <= at && at < b.end ? sum + b.quantity : sum), 0);
}

/** The most units held at any instant of `[from, to)`: the count can only rise where a booking starts. */
export function peakHeld(bookings: readonly HeldBooking[], from: number, to: number): number {
  const instants = [from, ...bookings.map((b) => b.start).filter((start) => from < start && start < to)];
  return Math.max(...instants.map((at) => heldAt(bookings, at)));
}

/** The bookings that share an instant with `[from, to)`. */
export function overlapping<T extends HeldBooking>(bookings: readonly T[], from: number, to: number): T[] {
  return bookings.filter((b) => b.start < to && from < b.end);
}

/** A `from`/`to` value as written: a date (`YYYY-MM-DD`) or a timestamp with a zone. */
export type RangeEnd = { readonly date: string } | { readonly instant: number; readonly text: string };

export const rangeText = (end: RangeEnd): string => ('date' in end ? end.date : end.text);

/** The instant a range end means as written (a date as UTC midnight). */
export const asWritten = (end: RangeEnd): number => ('date' in end ? Date.parse(`${end.date}T00:00:00Z`) : end.instant);

/** The instant a range end means for a product in a zone (a date as its local midnight). */
export function inZone(end: RangeEnd, zone: ZoneBoundaries): number {
  if (!('date' in end)) return end.instant;
  const start = zone.dayStart.get(end.date);
  if (start === undefined) throw new Error(`the model scanned no local day ${end.date}`);
  return start;
}

/** The slots covering `[from, to)`: from the boundary at or before `from` to the one at or after `to`. */
export function slotsCovering(boundaries: readonly number[], from: number, to: number): { start: number; end: number }[] {
  const first = boundaries.findLastIndex((b) => b <= from);
  const last = boundaries.findIndex((b) => b >= to);
  if (first < 0 || last < 0) throw new Error('the model scanned too short a span');
  const slots = [];
  for (let i = first; i < last; i += 1) slots.push({ start: boundaries[i] as number, end: boundaries[i + 1] as number });
  return slots;
}
