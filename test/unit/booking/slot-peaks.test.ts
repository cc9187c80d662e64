import { describe, expect, it } from 'vitest';
import { occupancy, peakHeld, slotPeaks } from '../../../src/booking/occupancy.js';
import type { Holding } from '../../../src/booking/occupancy.js';

const holding = (start: number, end: number, quantity = 1): Holding => ({ id: `${start}-${end}`, productId: 'p', start, end, quantity });

describe('slotPeaks', () => {
  it('gives the peak of each slot, half-open at both ends', () => {
    const steps = occupancy([holding(0, 10), holding(5, 20, 2), holding(20, 30)]);
    expect(slotPeaks(steps, [0, 10, 20, 30, 40])).toEqual([3, 2, 1, 0]);
    expect(slotPeaks(steps, [-10, 0])).toEqual([0]);
  });

  it('agrees with peakHeld on random holdings and slots', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 200; round += 1) {
      const holdings = Array.from({ length: random(12) }, () => {
        const start = random(100);
        return holding(start, start + 1 + random(30), 1 + random(3));
      });
      const bounds = [random(20)];
      for (let k = 0; k < 8; k += 1) bounds.push((bounds[bounds.length - 1] ?? 0) + 1 + random(20));
      const steps = occupancy(holdings);
      expect(slotPeaks(steps, bounds)).toEqual(bounds.slice(0, -1).map((start, k) => peakHeld(steps, start, bounds[k + 1] ?? start)));
    }
  });
});
