import { BoundedCache } from '../lib/bounded-cache.js';
import { instantOf, mod, wallClock } from '../lib/time-zone.js';

/** The length of an availability slot: a local calendar day or a local clock hour. */
export type Granularity = 'day' | 'hour';

/** A slot over the half-open interval `[start, end)` (epoch ms). */
export interface Slot {
  readonly start: number;
  readonly end: number;
}

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;

/**
 * The earliest instant reading `wall`, trying `guess` first: on days without a clock change
 * the guess is right, and checking it costs two readings instead of {@link instantOf}'s six.
 * The reading an hour earlier tells the first of two midnights from the second.
 */
function instantNear(zone: string, wall: number, guess: number): number {
  if (wallClock(zone, guess) === wall && wallClock(zone, guess - hourMs) === wall - hourMs) return guess;
  return instantOf(zone, wall);
}

/**
 * Local midnights already found, by zone and wall date. Finding one takes two to six
 * `Intl` readings; availability asks for the same days again and again (a search resolves
 * its range once per product, a month of day slots needs 31), so they are kept. Zone rules
 * only change with the Node release.
 */
const midnights = new BoundedCache<string, number>(50_000);

/** The instant local midnight `wallDay` (wall ms of 00:00) begins in `zone`; `guess` is tried first. */
function localMidnight(zone: string, wallDay: number, guess: number): number {
  return midnights.get(`${zone} ${wallDay}`, () => instantNear(zone, wallDay, guess));
}

/** The zone's offset from UTC at `instant`, in ms. */
const offsetAt = (zone: string, instant: number): number => wallClock(zone, instant) - instant;

/**
 * The first instant after `before` whose offset differs from the offset at `before`, found by
 * bisection, given that the offset at `after` differs (a clock change lies in between; no zone
 * changes its clocks twice within an hour).
 */
function clockChange(zone: string, before: number, after: number): number {
  const offset = offsetAt(zone, before);
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (offsetAt(zone, middle) === offset) before = middle;
    else after = middle;
  }
  return after;
}

/**
 * The start of the local clock hour in `zone` that contains `instant`: the top of the hour
 * it reads, unless the clocks changed since then, in which case the hour began with the
 * change (its earlier part belongs to the hour read before the change).
 */
export function startOfHour(zone: string, instant: number): number {
  const wall = wallClock(zone, instant);
  const top = instant - mod(wall, hourMs);
  return offsetAt(zone, top) === wall - instant ? top : clockChange(zone, top, instant);
}

/** The instant local midnight of a calendar date (`Date.UTC` of it) begins in `zone`. */
export function midnightOf(zone: string, utcDate: number): number {
  return midnights.get(`${zone} ${utcDate}`, () => instantOf(zone, utcDate));
}

/**
 * The start of the next local hour: the next top of the hour at the current offset, or an
 * earlier clock change. Stepping by instants keeps both copies of a repeated hour when clocks
 * fall back; a change that is not at the top of an hour (Australia/Lord_Howe moves its clocks
 * by half an hour, Pacific/Chatham at 02:45 and 03:45) ends the hour early, so every slot
 * reads one clock hour at one offset.
 */
function nextHour(zone: string, hourStart: number): number {
  const wall = wallClock(zone, hourStart);
  const top = hourStart + hourMs - mod(wall, hourMs);
  return offsetAt(zone, top - 1) === wall - hourStart ? top : clockChange(zone, hourStart, top - 1);
}

/**
 * The consecutive local slots of `zone` covering `[from, to)`: the first starts at the slot
 * boundary at or before `from`, the last ends at the boundary at or after `to`. `undefined`
 * when there would be more than `max` (the caller answers 400 without building them all).
 */
export function slotsCovering(zone: string, from: number, to: number, granularity: Granularity, max: number): Slot[] | undefined {
  // Even at the longest a local day (25 h) or hour (2 h, double summer time) can last, a
  // longer range has too many slots: refused before building any.
  const longest = granularity === 'day' ? 25 * hourMs : 2 * hourMs;
  if (to - from > (max + 1) * longest) return undefined;
  // Days step by wall date (each boundary a cached midnight); hours by instant.
  const fromWall = wallClock(zone, from);
  let wallDay = fromWall - mod(fromWall, dayMs);
  const next = granularity === 'day' ? (start: number) => localMidnight(zone, (wallDay += dayMs), start + dayMs) : (start: number) => nextHour(zone, start);
  const slots: Slot[] = [];
  let start = granularity === 'day' ? localMidnight(zone, wallDay, from - mod(fromWall, dayMs)) : startOfHour(zone, from);
  while (start < to) {
    if (slots.length === max) return undefined;
    const end = next(start);
    slots.push({ start, end });
    start = end;
  }
  return slots;
}
