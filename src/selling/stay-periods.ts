/**
 * The periods a stay is priced by, in the product's IANA time zone: nights and days follow
 * local midnights (23 or 25 hours across a daylight-saving change), hours run from the
 * stay's start. Each period carries the local date whose rate prices it.
 */
import { midnightOf } from '../booking/time-slots.js';
import { mod, wallClock } from '../lib/time-zone.js';

/** What one price buys: a night, a local calendar day, or an hour. */
export type PriceUnit = 'night' | 'day' | 'hour';

/** One priced period over `[start, end)` (epoch ms), priced by the local date `date` (`YYYY-MM-DD`). */
export interface Period {
  readonly start: number;
  readonly end: number;
  readonly date: string;
}

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

/** The local calendar date of `instant` in `zone`, as `Date.UTC` of that date. */
function localDay(zone: string, instant: number): number {
  const wall = wallClock(zone, instant);
  return wall - mod(wall, dayMs);
}

/** `YYYY-MM-DD` of a `Date.UTC` date. */
const dateText = (utcDate: number): string => new Date(utcDate).toISOString().slice(0, 10);

/** The local days `first` to `last` (`Date.UTC` dates, both included), each from its local midnight to the next. */
function days(zone: string, first: number, last: number): Period[] {
  const periods: Period[] = [];
  let start = midnightOf(zone, first);
  for (let day = first; day <= last; day += dayMs) {
    const end = midnightOf(zone, day + dayMs);
    periods.push({ start, end, date: dateText(day) });
    start = end;
  }
  return periods;
}

/**
 * The periods of a stay over `[start, end)` (epoch ms, `start < end`) in `timeZone`,
 * contiguous and in order:
 *
 * - `night`: one per local date from the start's up to, not including, the end's, and at
 *   least one (a same-day stay is a night); 15:00 on 1 June to 10:00 on 3 June is the nights
 *   of 1 and 2 June. Each runs from that date's local midnight to the next.
 * - `day`: one per local date the stay touches, midnight to midnight; an end at a local
 *   midnight does not touch the date it begins.
 * - `hour`: one per started hour from `start` (2 h 10 min is 3), priced by the local date on
 *   which it starts.
 *
 * Throws a `RangeError` unless `start` and `end` are integers with `start < end`.
 */
export function stayPeriods(unit: PriceUnit, timeZone: string, start: number, end: number): Period[] {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start >= end) throw new RangeError(`a stay needs integer bounds with start < end, not [${start}, ${end})`);
  if (unit === 'hour') {
    const periods: Period[] = [];
    for (let from = start; from < end; from += hourMs) periods.push({ start: from, end: from + hourMs, date: dateText(localDay(timeZone, from)) });
    return periods;
  }
  const first = localDay(timeZone, start);
  const endDay = localDay(timeZone, end);
  if (unit === 'night') return days(timeZone, first, Math.max(first, endDay - dayMs));
  // The end is exclusive: it touches its date only when it falls after that date's midnight.
  return days(timeZone, first, end > midnightOf(timeZone, endDay) ? endDay : endDay - dayMs);
}
