import { describe, expect, it } from 'vitest';
import { instantOf } from '../../../src/lib/time-zone.js';
import { midnightOf, slotsCovering, startOfHour } from '../../../src/booking/time-slots.js';

const iso = (ms: number) => new Date(ms).toISOString();
const hours = (slot: { start: number; end: number }) => (slot.end - slot.start) / 3_600_000;
const days = (zone: string, from: string, to: string) => slotsCovering(zone, midnightOf(zone, Date.parse(from)), midnightOf(zone, Date.parse(to)), 'day', 400) ?? [];
const hourSlots = (zone: string, from: string, to: string) => slotsCovering(zone, midnightOf(zone, Date.parse(from)), midnightOf(zone, Date.parse(to)), 'hour', 800) ?? [];

describe('time slots', () => {
  it('gives the same day boundaries from its cache as a fresh search of each midnight', () => {
    for (const zone of ['Europe/Berlin', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kolkata']) {
      const from = Date.parse('2029-12-25');
      const expected = Array.from({ length: 400 }, (_, k) => instantOf(zone, from + k * 86_400_000));
      for (let pass = 0; pass < 2; pass += 1) {
        const slots = slotsCovering(zone, expected[0] ?? 0, expected[399] ?? 0, 'day', 400) ?? [];
        expect(slots.map((slot) => slot.start)).toEqual(expected.slice(0, 399));
        expect(slots.map((slot) => slot.end)).toEqual(expected.slice(1));
        expect(midnightOf(zone, from + 100 * 86_400_000)).toBe(expected[100]);
      }
    }
  });

  it('cuts Europe/Berlin days at local midnight, 23 and 25 hours across daylight saving', () => {
    expect(days('Europe/Berlin', '2030-03-30', '2030-04-01').map((s) => [iso(s.start), hours(s)])).toEqual([
      ['2030-03-29T23:00:00.000Z', 24],
      ['2030-03-30T23:00:00.000Z', 23],
    ]);
    expect(days('Europe/Berlin', '2030-10-27', '2030-10-29').map((s) => [iso(s.start), hours(s)])).toEqual([
      ['2030-10-26T22:00:00.000Z', 25],
      ['2030-10-27T23:00:00.000Z', 24],
    ]);
  });

  it('has 23 and 25 one-hour slots on those days, keeping both copies of the repeated hour', () => {
    const spring = hourSlots('Europe/Berlin', '2030-03-31', '2030-04-01');
    expect(spring).toHaveLength(23);
    expect(spring.map(hours).every((h) => h === 1)).toBe(true);
    const autumn = hourSlots('Europe/Berlin', '2030-10-27', '2030-10-28');
    expect(autumn).toHaveLength(25);
    expect(iso(autumn[2]?.start ?? 0)).toBe('2030-10-27T00:00:00.000Z');
    expect(iso(autumn[3]?.start ?? 0)).toBe('2030-10-27T01:00:00.000Z');
  });

  it('starts a day at the first instant of the date when midnight is skipped (America/Santiago)', () => {
    // Chile springs forward at 24:00 on the first Saturday of September: 2030-09-08 starts at 01:00.
    const [, short] = days('America/Santiago', '2030-09-07', '2030-09-09');
    expect(iso(short?.start ?? 0)).toBe('2030-09-08T04:00:00.000Z');
    expect(hours(short ?? { start: 0, end: 0 })).toBe(23);
  });

  it('aligns hours to half-hour offsets and half-hour clock changes', () => {
    expect(iso(startOfHour('Asia/Kolkata', Date.parse('2030-01-01T10:10:00Z')))).toBe('2030-01-01T09:30:00.000Z');
    // Lord Howe Island falls back from 02:00 to 01:30: the repeated half hour is a slot of its own.
    const back = hourSlots('Australia/Lord_Howe', '2030-04-07', '2030-04-08');
    expect(back.filter((slot) => hours(slot) !== 1).map((slot) => [iso(slot.start), hours(slot)])).toEqual([['2030-04-06T15:00:00.000Z', 0.5]]);
    // It springs forward from 02:00 to 02:30: that hour has 30 minutes.
    const forward = hourSlots('Australia/Lord_Howe', '2030-10-06', '2030-10-07');
    expect(forward.filter((slot) => hours(slot) !== 1).map((slot) => [iso(slot.start), hours(slot)])).toEqual([['2030-10-05T15:30:00.000Z', 0.5]]);
    expect(iso(startOfHour('Australia/Lord_Howe', Date.parse('2030-04-06T15:10:00Z')))).toBe('2030-04-06T15:00:00.000Z');
  });

  it('cuts an hour where the clocks change within it (Pacific/Chatham, at 03:45 and 02:45)', () => {
    // Back from 03:45 (+13:45) to 02:45 (+12:45) at 14:00Z: 03:00–03:45, then 02:45–03:00 again.
    const back = hourSlots('Pacific/Chatham', '2030-04-07', '2030-04-08');
    expect(back.filter((slot) => hours(slot) !== 1).map((slot) => [iso(slot.start), hours(slot)])).toEqual([
      ['2030-04-06T13:15:00.000Z', 0.75],
      ['2030-04-06T14:00:00.000Z', 0.25],
    ]);
    expect(back.reduce((sum, slot) => sum + hours(slot), 0)).toBe(25);
    // Forward from 02:45 (+12:45) to 03:45 (+13:45): 02:00–02:45, then 03:45–04:00.
    const forward = hourSlots('Pacific/Chatham', '2030-09-29', '2030-09-30');
    expect(forward.filter((slot) => hours(slot) !== 1).map((slot) => [iso(slot.start), hours(slot)])).toEqual([
      ['2030-09-28T13:15:00.000Z', 0.75],
      ['2030-09-28T14:00:00.000Z', 0.25],
    ]);
    expect(forward.reduce((sum, slot) => sum + hours(slot), 0)).toBe(23);
    expect(iso(startOfHour('Pacific/Chatham', Date.parse('2030-04-06T14:10:00Z')))).toBe('2030-04-06T14:00:00.000Z');
    expect(iso(startOfHour('Pacific/Chatham', Date.parse('2030-09-28T14:10:00Z')))).toBe('2030-09-28T14:00:00.000Z');
  });

  it('floors an instant to its local day', () => {
    const dayOf = (zone: string, at: string) => slotsCovering(zone, Date.parse(at), Date.parse(at) + 1, 'day', 1)?.[0]?.start ?? Number.NaN;
    expect(iso(dayOf('America/New_York', '2030-01-02T03:00:00Z'))).toBe('2030-01-01T05:00:00.000Z');
    expect(iso(dayOf('UTC', '2030-01-02T03:00:00Z'))).toBe('2030-01-02T00:00:00.000Z');
  });

  it('refuses more slots than the maximum, even for very long ranges', () => {
    const from = Date.parse('2030-01-01T00:00:00Z');
    expect(slotsCovering('UTC', from, from + 3 * 86_400_000, 'day', 3)).toHaveLength(3);
    expect(slotsCovering('UTC', from, from + 3 * 86_400_000 + 1, 'day', 3)).toBeUndefined();
    expect(slotsCovering('UTC', from, from + 1e14, 'hour', 744)).toBeUndefined();
  });
});
