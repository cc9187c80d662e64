import { describe, expect, it } from 'vitest';
import { catalogueCities, catalogueProduct, catalogueYearStart, planBookings, plannedPeak } from '../../../bench/catalogue.js';
import { peakHeld, seededRandom } from '../../../bench/overlap.js';
import { contendedBooking, contendedMinutes, contendedUnits } from '../../../bench/scenarios/book-contended.js';

const yearMs = 365 * 86_400_000;

describe('the availability catalogue', () => {
  it('puts 100 of 1 000 products in each of ten cities, none in the fixtures’ Berlin', () => {
    const cities = Array.from({ length: 1000 }, (_, i) => String(catalogueProduct(i).city));
    for (const city of catalogueCities) expect(cities.filter((c) => c === city)).toHaveLength(100);
    expect(cities).not.toContain('Berlin');
  });

  it('plans valid bookings: active ones never hold more than the product’s units at any instant', () => {
    const random = seededRandom(1);
    for (const totalItems of [1, 5, 12, 20]) {
      const plan = planBookings(random, totalItems, 100, catalogueYearStart);
      expect(plan).toHaveLength(100);
      expect(peakHeld(plan.filter((b) => b.status === 'active')).held).toBeLessThanOrEqual(totalItems);
    }
  });

  it('spreads stays of 1–7 nights and 1–3 units over the year, mostly active, some cancelled', () => {
    const plan = Array.from({ length: 20 }, (_, i) => planBookings(seededRandom(i), 10, 100, catalogueYearStart)).flat();
    expect(plan.every((b) => b.quantity >= 1 && b.quantity <= 3)).toBe(true);
    expect(plan.every((b) => b.start >= catalogueYearStart && b.start < catalogueYearStart + yearMs)).toBe(true);
    const nights = plan.map((b) => Math.round((b.end - b.start) / 86_400_000));
    expect(Math.min(...nights)).toBe(1);
    expect(Math.max(...nights)).toBe(7);
    const cancelled = plan.filter((b) => b.status === 'cancelled').length / plan.length;
    expect(cancelled).toBeGreaterThan(0.05);
    expect(cancelled).toBeLessThan(0.2);
    const months = new Set(plan.map((b) => new Date(b.start).getUTCMonth()));
    expect(months.size).toBe(12);
  });

  it('is the same plan on every run (the PRNG is seeded)', () => {
    expect(planBookings(seededRandom(3), 8, 50, catalogueYearStart)).toEqual(planBookings(seededRandom(3), 8, 50, catalogueYearStart));
  });

  it('counts booked units in a slot from active bookings only, clipped to the slot', () => {
    const day = 86_400_000;
    const plan = [
      { start: 0, end: 3 * day, quantity: 2, status: 'active' as const },
      { start: day, end: 2 * day, quantity: 5, status: 'cancelled' as const },
      { start: 2 * day, end: 4 * day, quantity: 1, status: 'active' as const },
    ];
    expect(plannedPeak(plan, day, 2 * day)).toBe(2);
    expect(plannedPeak(plan, 2 * day, 3 * day)).toBe(3);
    expect(plannedPeak(plan, 3 * day, 4 * day)).toBe(1);
    expect(plannedPeak(plan, 5 * day, 6 * day)).toBe(0);
  });
});

describe('book-contended requests', () => {
  it('make capacity bind: taken one after another, one booking in eleven finds its first minute full', () => {
    const accepted: { start: number; end: number; quantity: number }[] = [];
    let refused = 0;
    for (let n = 0; n < 1100; n += 1) {
      const body = contendedBooking('p', n);
      const claim = { start: Date.parse(String(body.start_time)), end: Date.parse(String(body.end_time)), quantity: Number(body.quantity) };
      if (peakHeld([...accepted.filter((b) => b.end > claim.start), claim]).held > contendedUnits) refused += 1;
      else accepted.push(claim);
    }
    expect(contendedMinutes).toBe(contendedUnits + 1);
    expect(refused).toBe(100);
    expect(peakHeld(accepted).held).toBe(contendedUnits);
  });
});
