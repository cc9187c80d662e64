import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stayPeriods } from '../../../src/selling/stay-periods.js';
import type { Period, PriceUnit } from '../../../src/selling/stay-periods.js';

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;
const berlin = 'Europe/Berlin';
const at = (iso: string): number => Date.parse(iso);
const iso = (period: Period) => ({ start: new Date(period.start).toISOString(), end: new Date(period.end).toISOString(), date: period.date });

/** The local date of `instant` in `zone`, read by `Intl` directly rather than through src/lib/time-zone.ts. */
function localDate(zone: string, instant: number): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** Calendar days from date `a` to date `b` (`YYYY-MM-DD`). */
const daysBetween = (a: string, b: string): number => (Date.parse(b) - Date.parse(a)) / dayMs;

describe('stay periods', () => {
  it('counts the nights between the local arrival and departure dates', () => {
    // 15:00 on 1 June to 10:00 on 3 June in Berlin (UTC+2).
    const periods = stayPeriods('night', berlin, at('2026-06-01T13:00:00Z'), at('2026-06-03T08:00:00Z'));
    expect(periods.map(iso)).toEqual([
      { start: '2026-05-31T22:00:00.000Z', end: '2026-06-01T22:00:00.000Z', date: '2026-06-01' },
      { start: '2026-06-01T22:00:00.000Z', end: '2026-06-02T22:00:00.000Z', date: '2026-06-02' },
    ]);
  });

  it('makes a same-day stay one night', () => {
    const periods = stayPeriods('night', berlin, at('2026-06-01T08:00:00Z'), at('2026-06-01T16:00:00Z'));
    expect(periods.map((p) => p.date)).toEqual(['2026-06-01']);
  });

  it('lets a night last 23 hours when clocks spring forward and 25 when they fall back', () => {
    const spring = stayPeriods('night', berlin, at('2026-03-29T13:00:00Z'), at('2026-03-30T08:00:00Z'));
    expect(spring.map(iso)).toEqual([{ start: '2026-03-28T23:00:00.000Z', end: '2026-03-29T22:00:00.000Z', date: '2026-03-29' }]);
    expect(spring[0]!.end - spring[0]!.start).toBe(23 * hourMs);
    const autumn = stayPeriods('night', berlin, at('2026-10-25T14:00:00Z'), at('2026-10-26T09:00:00Z'));
    expect(autumn.map(iso)).toEqual([{ start: '2026-10-24T22:00:00.000Z', end: '2026-10-25T23:00:00.000Z', date: '2026-10-25' }]);
    expect(autumn[0]!.end - autumn[0]!.start).toBe(25 * hourMs);
  });

  it('counts the local days a stay touches; an end at local midnight does not touch the next day', () => {
    const toMidnight = stayPeriods('day', berlin, at('2026-06-01T08:00:00Z'), at('2026-06-02T22:00:00Z'));
    expect(toMidnight.map((p) => p.date)).toEqual(['2026-06-01', '2026-06-02']);
    expect(new Date(toMidnight[1]!.end).toISOString()).toBe('2026-06-02T22:00:00.000Z');
    const pastMidnight = stayPeriods('day', berlin, at('2026-06-01T08:00:00Z'), at('2026-06-02T22:00:00.001Z'));
    expect(pastMidnight.map((p) => p.date)).toEqual(['2026-06-01', '2026-06-02', '2026-06-03']);
  });

  it('counts every started hour from the start', () => {
    const start = at('2026-06-01T21:30:00Z');
    const periods = stayPeriods('hour', berlin, start, start + 2 * hourMs + 10 * 60 * 1000);
    expect(periods.map(iso)).toEqual([
      { start: '2026-06-01T21:30:00.000Z', end: '2026-06-01T22:30:00.000Z', date: '2026-06-01' },
      // 00:30 local: the hour starts on 2 June.
      { start: '2026-06-01T22:30:00.000Z', end: '2026-06-01T23:30:00.000Z', date: '2026-06-02' },
      { start: '2026-06-01T23:30:00.000Z', end: '2026-06-02T00:30:00.000Z', date: '2026-06-02' },
    ]);
  });

  it('refuses an empty or reversed stay', () => {
    expect(() => stayPeriods('night', berlin, 1000, 1000)).toThrow(RangeError);
    expect(() => stayPeriods('hour', berlin, 2000, 1000)).toThrow(RangeError);
  });

  it('tiles the stay: contiguous, ordered, starting at or before it, as many periods as the unit counts', () => {
    const zones = ['UTC', berlin, 'America/New_York', 'America/Santiago', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Kolkata', 'America/St_Johns'];
    const units: PriceUnit[] = ['night', 'day', 'hour'];
    const stay = fc.record({
      zone: fc.constantFrom(...zones),
      unit: fc.constantFrom(...units),
      start: fc.integer({ min: at('2025-01-01T00:00:00Z'), max: at('2028-01-01T00:00:00Z') }),
      length: fc.integer({ min: 1, max: 20 * dayMs }),
    });
    fc.assert(
      fc.property(stay, ({ zone, unit, start, length }) => {
        // Hour stays kept to 3 days: each hour is an Intl reading.
        const end = start + (unit === 'hour' ? length % (3 * dayMs) || 1 : length);
        const periods = stayPeriods(unit, zone, start, end);
        const arrival = localDate(zone, start);
        const expected = {
          night: Math.max(1, daysBetween(arrival, localDate(zone, end))),
          day: daysBetween(arrival, localDate(zone, end - 1)) + 1,
          hour: Math.ceil((end - start) / hourMs),
        }[unit];
        expect(periods).toHaveLength(expected);
        const first = periods[0]!;
        const last = periods.at(-1)!;
        expect(first.start).toBeLessThanOrEqual(start);
        expect(first.date).toBe(arrival);
        for (const [i, period] of periods.entries()) {
          expect(period.start).toBeLessThan(period.end);
          if (i > 0) expect(period.start).toBe(periods[i - 1]!.end);
          expect(period.date).toBe(localDate(zone, period.start));
          // A night or day lies within its local date; an hour is exactly an hour.
          if (unit === 'hour') expect(period.end - period.start).toBe(hourMs);
          else expect(localDate(zone, period.end - 1)).toBe(period.date);
        }
        if (unit !== 'night') {
          expect(first.end).toBeGreaterThan(start);
          expect(last.end).toBeGreaterThanOrEqual(end);
          expect(last.start).toBeLessThan(end);
        }
      }),
      { numRuns: 300 },
    );
  });
});
