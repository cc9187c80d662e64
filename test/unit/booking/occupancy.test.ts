import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { occupancy, peakHeld } from '../../../src/booking/occupancy.js';
import type { Holding } from '../../../src/booking/occupancy.js';

const holding = (start: number, end: number, quantity = 1, id = `${start}-${end}`): Holding => ({ id, productId: 'p', start, end, quantity });

describe('occupancy', () => {
  it('adds overlapping holdings and keeps touching ones apart (half-open)', () => {
    const steps = occupancy([holding(10, 20), holding(20, 30), holding(15, 25, 2)]);
    expect(peakHeld(steps, 10, 15)).toBe(1);
    expect(peakHeld(steps, 10, 16)).toBe(3);
    expect(peakHeld(steps, 25, 30)).toBe(1);
    expect(peakHeld(steps, 30, 40)).toBe(0);
    expect(peakHeld(steps, 0, 10)).toBe(0);
    expect(peakHeld(steps, 19, 21)).toBe(3);
  });

  it('reads the level already held when the window opens', () => {
    const steps = occupancy([holding(0, 100, 4)]);
    expect(peakHeld(steps, 50, 60)).toBe(4);
  });

  it('answers 0 for an empty window and ignores empty holdings', () => {
    const steps = occupancy([holding(5, 5, 9), holding(0, 10)]);
    expect(peakHeld(steps, 3, 3)).toBe(0);
    expect(peakHeld(steps, 0, 10)).toBe(1);
  });

  it('equals a brute-force count at every integer instant', () => {
    const arbitrary = fc.array(fc.record({ start: fc.integer({ min: 0, max: 40 }), length: fc.integer({ min: 1, max: 15 }), quantity: fc.integer({ min: 1, max: 5 }) }), { maxLength: 25 });
    fc.assert(
      fc.property(arbitrary, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 1, max: 20 }), (items, from, length) => {
        const holdings = items.map((item, i) => holding(item.start, item.start + item.length, item.quantity, String(i)));
        let expected = 0;
        for (let t = from; t < from + length; t += 1)
          expected = Math.max(
            expected,
            holdings.filter((h) => h.start <= t && t < h.end).reduce((sum, h) => sum + h.quantity, 0),
          );
        expect(peakHeld(occupancy(holdings), from, from + length)).toBe(expected);
      }),
    );
  });
});
