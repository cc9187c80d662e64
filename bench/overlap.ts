/**
 * The booking invariant, checked from outside the service: pure code that shares nothing
 * with src/booking/, so a bug there cannot hide itself here. Intervals are half-open
 * `[start, end)` in epoch ms: one ending at 10:00 and one starting at 10:00 never add up.
 */

export interface HeldInterval {
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
}

export interface Peak {
  /** The most units held at any instant. */
  readonly held: number;
  /** The first instant at which `held` units are held (NaN without intervals). */
  readonly at: number;
}

/**
 * The most units held at once, by a sweep over every start and end (O(n log n)). At equal
 * instants ends are applied before starts, which is what half-open intervals mean.
 */
export function peakHeld(intervals: readonly HeldInterval[]): Peak {
  const events: [number, number][] = [];
  for (const { start, end, quantity } of intervals) {
    if (!(end > start)) continue;
    events.push([start, quantity], [end, -quantity]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let held = 0;
  let peak: Peak = { held: 0, at: Number.NaN };
  for (const [at, delta] of events) {
    held += delta;
    if (held > peak.held) peak = { held, at };
  }
  return peak;
}

/**
 * The same answer by brute force: the units held at every instant where some interval
 * starts (the level only rises there), summed over all intervals. O(n²); the reference the
 * sweep is tested against and a second opinion on small sets.
 */
export function peakHeldBruteForce(intervals: readonly HeldInterval[]): Peak {
  let peak: Peak = { held: 0, at: Number.NaN };
  const starts = [...new Set(intervals.filter((i) => i.end > i.start).map((i) => i.start))].sort((a, b) => a - b);
  for (const t of starts) {
    let held = 0;
    for (const { start, end, quantity } of intervals) if (start <= t && t < end) held += quantity;
    if (held > peak.held) peak = { held, at: t };
  }
  return peak;
}

/** A small seeded PRNG (mulberry32), so seeded data is the same on every run and database. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
