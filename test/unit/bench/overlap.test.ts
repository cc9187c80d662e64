import { describe, expect, it } from 'vitest';
import { peakHeld, peakHeldBruteForce, seededRandom } from '../../../bench/overlap.js';
import type { HeldInterval } from '../../../bench/overlap.js';

const at = (minute: number) => minute * 60_000;
const interval = (start: number, end: number, quantity = 1): HeldInterval => ({ start: at(start), end: at(end), quantity });

describe('the invariant check of book-contended', () => {
  it('treats intervals as half-open: one ending at 10:00 and one starting at 10:00 never add up', () => {
    const touching = [interval(0, 10, 3), interval(10, 20, 3)];
    expect(peakHeld(touching)).toEqual({ held: 3, at: at(0) });
    expect(peakHeldBruteForce(touching).held).toBe(3);
  });

  it('adds quantities where intervals overlap and names the first instant of the peak', () => {
    const list = [interval(0, 30, 2), interval(10, 20, 3), interval(15, 40, 1), interval(35, 50, 4)];
    expect(peakHeld(list)).toEqual({ held: 6, at: at(15) });
    expect(peakHeldBruteForce(list)).toEqual({ held: 6, at: at(15) });
  });

  it('ignores empty and inverted intervals, and holds nothing without intervals', () => {
    expect(peakHeld([interval(5, 5, 9), interval(6, 4, 9)]).held).toBe(0);
    expect(peakHeld([]).held).toBe(0);
    expect(peakHeldBruteForce([interval(5, 5, 9)]).held).toBe(0);
  });

  it('agrees with the brute-force count on random bookings', () => {
    const random = seededRandom(42);
    for (let round = 0; round < 50; round += 1) {
      const list = Array.from({ length: 60 }, () => {
        const start = Math.floor(random() * 200);
        return interval(start, start + 1 + Math.floor(random() * 30), 1 + Math.floor(random() * 3));
      });
      expect(peakHeld(list).held).toBe(peakHeldBruteForce(list).held);
    }
  });

  it('draws the same numbers from the same seed, in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const drawn = Array.from({ length: 1000 }, () => a());
    expect(drawn).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(drawn.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(drawn).size).toBeGreaterThan(990);
  });
});
