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

/** The start of the local day in `zone` that contains `instant` (23 or 25 hours across DST). */
export function startOfDay(zone: string, instant: number): number {
  const wall = wallClock(zone, instant);
  const into = mod(wall, dayMs);
  return instantNear(zone, wall - into, instant - into);
}

/** The start of the local clock hour in `zone` that contains `instant`. */
export function startOfHour(zone: string, instant: number): number {
  return instant - mod(wallClock(zone, instant), hourMs);
}

/** The instant local midnight of a calendar date (`Date.UTC` of it) begins in `zone`. */
export function midnightOf(zone: string, utcDate: number): number {
  return instantOf(zone, utcDate);
}

/** The start of the next local day after the one starting at `dayStart`. */
function nextDay(zone: string, dayStart: number): number {
  const wall = wallClock(zone, dayStart);
  return instantNear(zone, wall - mod(wall, dayMs) + dayMs, dayStart + dayMs);
}

/**
 * The start of the next local hour. Stepping by instants, not readings, keeps both copies
 * of a repeated hour when clocks fall back; the correction covers zones whose clocks move
 * by half an hour (Australia/Lord_Howe), where a local hour is 30 minutes longer or shorter.
 */
function nextHour(zone: string, hourStart: number): number {
  const next = hourStart + hourMs;
  const off = mod(wallClock(zone, next), hourMs);
  if (off === 0) return next;
  const earlier = next - off;
  if (earlier > hourStart && mod(wallClock(zone, earlier), hourMs) === 0) return earlier;
  return next + hourMs - off;
}

/** The start of the slot of `granularity` containing `instant`. */
export function slotStart(zone: string, instant: number, granularity: Granularity): number {
  return granularity === 'day' ? startOfDay(zone, instant) : startOfHour(zone, instant);
}

/**
 * The consecutive local slots of `zone` covering `[from, to)`: the first starts at the slot
 * boundary at or before `from`, the last ends at the boundary at or after `to`. `undefined`
 * when there would be more than `max` (the caller answers 400 without building them all).
 */
export function slotsCovering(zone: string, from: number, to: number, granularity: Granularity, max: number): Slot[] | undefined {
  const next = granularity === 'day' ? nextDay : nextHour;
  // Even at the longest a local day (25 h) or hour (2 h, double summer time) can last, a
  // longer range has too many slots: refused before building any.
  const longest = granularity === 'day' ? 25 * hourMs : 2 * hourMs;
  if (to - from > (max + 1) * longest) return undefined;
  const slots: Slot[] = [];
  let start = slotStart(zone, from, granularity);
  while (start < to) {
    if (slots.length === max) return undefined;
    const end = next(zone, start);
    slots.push({ start, end });
    start = end;
  }
  return slots;
}
