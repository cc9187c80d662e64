import { describe, expect, it } from 'vitest';
import { instantOf, isTimeZone, wallClock } from '../../../src/lib/time-zone.js';

describe('time zones', () => {
  it('accepts IANA names and refuses offsets, unknown names and case variants', () => {
    for (const zone of ['UTC', 'Etc/UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'US/Eastern', 'Etc/GMT+5']) expect(isTimeZone(zone), zone).toBe(true);
    for (const zone of ['', '+01:00', 'Mars/Olympus', 'europe/berlin', 'Europe/Berlin ', '../etc/passwd']) expect(isTimeZone(zone), zone).toBe(false);
  });

  it('reads the wall clock and maps readings back, first occurrence or after a gap', () => {
    expect(new Date(wallClock('Europe/Berlin', Date.parse('2030-07-01T10:00:00.250Z'))).toISOString()).toBe('2030-07-01T12:00:00.250Z');
    // 02:30 on 2030-10-27 happens twice in Berlin: the first is at 00:30Z.
    expect(new Date(instantOf('Europe/Berlin', Date.parse('2030-10-27T02:30:00Z'))).toISOString()).toBe('2030-10-27T00:30:00.000Z');
    // 02:30 on 2030-03-31 never happens: the clocks jump to 03:00 at 01:00Z.
    expect(new Date(instantOf('Europe/Berlin', Date.parse('2030-03-31T02:30:00Z'))).toISOString()).toBe('2030-03-31T01:00:00.000Z');
  });
});
