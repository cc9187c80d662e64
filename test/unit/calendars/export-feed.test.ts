import fc from 'fast-check';
import { foldLines } from 'ical-generator';
import { describe, expect, it } from 'vitest';
import { feedText } from '../../../src/calendars/export-feed.js';

const booking = (i: number) => ({
  _id: `01a24bf9-249b-71d0-b45b-${String(i).padStart(12, '0')}`,
  start_time: new Date(Date.UTC(2027, 0, 1) + i * 3_600_000).toISOString(),
  end_time: new Date(Date.UTC(2027, 0, 1) + (i + 20) * 3_600_000).toISOString(),
  status: i % 4 === 0 ? 'cancelled' : 'active',
  quantity: 1 + (i % 3),
  expires_at: null,
  created_at: '2026-12-01T00:00:00.000Z',
  updated_at: '2026-12-02T00:00:05.000Z',
});

describe('the exported feed text', () => {
  it('is folded exactly as the library folds it, for any host name, and every line fits 75 octets', async () => {
    const host = fc.oneof(
      fc.domain(),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }).map((text) => text.replace(/[\r\n]/g, 'x')),
    );
    await fc.assert(
      fc.asyncProperty(host, fc.integer({ min: 0, max: 40 }), async (name, count) => {
        const text = await feedText(
          name,
          Array.from({ length: count }, (_, i) => booking(i)),
          Date.UTC(2026, 11, 6),
        );
        const unfolded = text.replace(/\r\n /g, '');
        expect(text).toBe(`${foldLines(unfolded.replace(/\r\n$/, ''))}\r\n`);
        expect(text.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);
        expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
        expect(text.endsWith('END:VCALENDAR\r\n')).toBe(true);
        expect(text.match(/BEGIN:VEVENT/g)?.length ?? 0).toBe(count);
      }),
      { numRuns: 60 },
    );
  });
});
