import { describe, expect, it } from 'vitest';
import { addDays, dayIn, dayLabel } from '../../../admin/src/days.js';
import { describeOccupancy, occupancyByDay } from '../../../admin/src/occupancy.js';

describe('console occupancy helpers', () => {
  it("counts calendar days across month and year ends, and names an instant's day in a zone", () => {
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', 30)).toBe('2026-03-31');
    expect(addDays('2026-03-28', 2)).toBe('2026-03-30');
    expect(dayIn('2026-03-29T22:30:00Z', 'Europe/Berlin')).toBe('2026-03-30');
    expect(dayIn('2026-03-29T22:30:00Z', 'UTC')).toBe('2026-03-29');
    expect(dayLabel('2026-03-30')).toBe('Mon 2026-03-30');
  });

  it("names each slot by its day in the product's zone, whatever offset its start is written in", () => {
    const days = occupancyByDay({
      product_id: 'p',
      total_items: 2,
      time_zone: 'Europe/Berlin',
      from: '2026-03-29',
      to: '2026-03-31',
      granularity: 'day',
      slots: [
        { start: '2026-03-28T23:00:00Z', end: '2026-03-29T22:00:00Z', booked: 1, available: 1 },
        { start: '2026-03-30T00:00:00+02:00', end: '2026-03-31T00:00:00+02:00', booked: 2, available: 0 },
      ],
    });
    expect(days).toEqual([
      { day: '2026-03-29', booked: 1, available: 1 },
      { day: '2026-03-30', booked: 2, available: 0 },
    ]);
  });

  it('summarises the chart: peak, days with bookings, fully booked days', () => {
    const days = [
      { day: '2026-03-29', booked: 1, available: 1 },
      { day: '2026-03-30', booked: 2, available: 0 },
      { day: '2026-03-31', booked: 0, available: 2 },
    ];
    expect(describeOccupancy(days, 2)).toBe('Peak: 2 of 2 units booked on Mon 2026-03-30. 2 of 3 days have bookings. Fully booked: Mon 2026-03-30.');
    expect(
      describeOccupancy(
        days.map((d) => ({ ...d, booked: 0, available: 2 })),
        2,
      ),
    ).toBe('No unit is booked on any day. 0 of 3 days have bookings. No day is fully booked.');
    expect(describeOccupancy([], 2)).toBe('No days in range.');
  });
});
