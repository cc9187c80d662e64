import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../src/calendars/parse-feed.js';

const day = 86_400_000;

describe('parsing a feed', () => {
  it('reaches the window through a series that began years ago (daily since 2005)', () => {
    const feed = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', 'UID:daily@x', 'DTSTART:20050101T100000Z', 'DTEND:20050101T110000Z', 'RRULE:FREQ=DAILY', 'END:VEVENT', 'END:VCALENDAR', ''].join(
      '\r\n',
    );
    const now = Date.UTC(2026, 11, 6, 12);
    const { events, skipped } = parseFeed(feed, { from: now - 30 * day, to: now + 730 * day, zone: 'UTC' });
    expect(skipped).toBe(0);
    // Every day of the window, from the first whose hour ends after `from`.
    expect(events.size).toBe(760);
    expect(events.get('daily@x#2026-12-06T10:00:00.000Z')).toEqual({ start: Date.UTC(2026, 11, 6, 10), end: Date.UTC(2026, 11, 6, 11) });
  });
});
