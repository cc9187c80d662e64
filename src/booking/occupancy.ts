/**
 * Occupancy of one product as a step function of time, built from the bookings that hold
 * its units. Pure code: the capacity check and the availability read model both answer from
 * it, so "free" means the same thing in both (docs/architecture.md "Rules we keep":
 * availability is a read model of the capacity check, never a second implementation).
 */

/** A booking that holds units over the half-open interval `[start, end)` (epoch ms). */
export interface Holding {
  readonly id: string;
  readonly productId: string;
  readonly start: number;
  readonly end: number;
  readonly quantity: number;
}

/**
 * Units held from `at[i]` until `at[i + 1]` are `level[i]`; before `at[0]` none. Points are
 * strictly increasing, so a booking ending at 10:00 and one starting at 10:00 meet at one
 * point and never add up (half-open intervals).
 */
export interface Occupancy {
  readonly at: readonly number[];
  readonly level: readonly number[];
}

/** The occupancy step function of some holdings. */
export function occupancy(holdings: Iterable<Holding>): Occupancy {
  const deltas = new Map<number, number>();
  for (const { start, end, quantity } of holdings) {
    if (end <= start) continue;
    deltas.set(start, (deltas.get(start) ?? 0) + quantity);
    deltas.set(end, (deltas.get(end) ?? 0) - quantity);
  }
  const at = [...deltas.keys()].sort((a, b) => a - b);
  const level: number[] = [];
  let held = 0;
  for (const point of at) {
    held += deltas.get(point) ?? 0;
    level.push(held);
  }
  return { at, level };
}

/** The most units held at any instant of `[from, to)`. */
export function peakHeld(steps: Occupancy, from: number, to: number): number {
  if (to <= from) return 0;
  // The last point at or before `from` gives the level at `from` itself.
  let i = lastPointAtOrBefore(steps.at, from);
  let peak = i >= 0 ? (steps.level[i] ?? 0) : 0;
  for (i += 1; i < steps.at.length && (steps.at[i] ?? Infinity) < to; i += 1) peak = Math.max(peak, steps.level[i] ?? 0);
  return peak;
}

function lastPointAtOrBefore(points: readonly number[], t: number): number {
  let low = 0;
  let high = points.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((points[mid] ?? Infinity) <= t) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

/**
 * {@link peakHeld} of each consecutive slot `[bounds[k], bounds[k + 1])`, in one walk over
 * the steps instead of one search per slot: a year of hourly slots stays linear.
 */
export function slotPeaks(steps: Occupancy, bounds: readonly number[]): number[] {
  const { at, level: levels } = steps;
  const peaks: number[] = [];
  let i = 0;
  let level = 0;
  for (let k = 0; k + 1 < bounds.length; k += 1) {
    const start = bounds[k] ?? 0;
    const end = bounds[k + 1] ?? 0;
    // Points at the slot's start set the level it opens with (half-open: one ending there counts no more).
    for (; i < at.length && (at[i] ?? Infinity) <= start; i += 1) level = levels[i] ?? 0;
    let peak = level;
    for (; i < at.length && (at[i] ?? Infinity) < end; i += 1) {
      level = levels[i] ?? 0;
      peak = Math.max(peak, level);
    }
    peaks.push(peak);
  }
  return peaks;
}
