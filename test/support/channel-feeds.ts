/**
 * iCalendar feeds shaped as the channels write them (Airbnb, Booking.com, Google Calendar,
 * Outlook / Exchange), generated around "now" so every event stays inside the import window
 * (30 days back, 2 years ahead), each with the blocks an import must make of it.
 *
 * The expected blocks are worked out here without the service's time-zone code: the zones
 * involved all follow the EU rule (summer time from 01:00 UTC on the last Sunday of March
 * to 01:00 UTC on the last Sunday of October), so a wall-clock reading in Berlin or Lisbon
 * maps to UTC by plain arithmetic. The events sit on and around those changes, so a reader
 * that used the wrong zone or offset gets an hour wrong somewhere.
 */

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/** One block an import must hold: its `external_uid` and UTC interval. */
export interface ExpectedBlock {
  readonly uid: string;
  readonly start: string;
  readonly end: string;
}

/** A channel's feed and what importing it into a product in `zone` must give. */
export interface ChannelFeed {
  readonly channel: string;
  /** The product's zone: all-day dates (and floating times) are read in it. */
  readonly zone: Zone;
  readonly text: string;
  /** Blocks by start, then uid. */
  readonly blocks: readonly ExpectedBlock[];
  /** Events the import must count as skipped (malformed). */
  readonly skipped: number;
  /** Units the product needs for every block to fit (1 unless events overlap). */
  readonly units?: number;
}

/** The last Sunday of `month` (1-12) of `year`, as the UTC midnight of that date. */
export function lastSunday(year: number, month: number): number {
  const last = Date.UTC(year, month, 0);
  return last - new Date(last).getUTCDay() * dayMs;
}

/** Whether the EU's summer time is in force at `instant`. */
function euSummer(instant: number): boolean {
  const year = new Date(instant).getUTCFullYear();
  return instant >= lastSunday(year, 3) + hourMs && instant < lastSunday(year, 10) + hourMs;
}

/** Standard offsets (hours east of UTC) of the zones used here; both follow the EU rule. */
const standardOffset = { 'Europe/Berlin': 1, 'Europe/Lisbon': 0 } as const;
export type Zone = keyof typeof standardOffset;

/**
 * The instant of the wall-clock reading `wall` (the reading's digits as UTC ms) in `zone`.
 * Only for readings outside the hour clocks skip or repeat (none of the feeds uses one).
 */
export function wallToUtc(zone: Zone, wall: number): number {
  const standard = standardOffset[zone];
  const offset = euSummer(wall - (standard + 1) * hourMs) ? standard + 1 : standard;
  return wall - offset * hourMs;
}

/** The UTC midnight of the date `days` days after the date of `day` (a UTC midnight). */
const plus = (day: number, days: number) => day + days * dayMs;
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** `YYYYMMDD` of a UTC-midnight date. */
export function icsDate(day: number): string {
  const d = new Date(day);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
}
/** `YYYYMMDDTHHMMSS` of a wall-clock reading (no zone). */
function icsLocal(wall: number): string {
  const d = new Date(wall);
  return `${icsDate(wall - (wall % dayMs))}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}
/** `YYYYMMDDTHHMMSSZ` of an instant. */
function icsUtc(instant: number): string {
  return `${icsLocal(instant)}Z`;
}
const iso = (instant: number) => new Date(instant).toISOString();

/** A block of an all-day event `[from, to)` (UTC-midnight dates) in a product of `zone`. */
function allDayBlock(uid: string, zone: Zone, from: number, to: number): ExpectedBlock {
  return { uid, start: iso(wallToUtc(zone, from)), end: iso(wallToUtc(zone, to)) };
}

/** A calendar as RFC 5545 text: CRLF line ends, long lines folded at 75 octets as channels fold them. */
function calendar(lines: readonly string[]): string {
  const folded = lines.flatMap((line) => {
    const parts = [line.slice(0, 75)];
    for (let at = 75; at < line.length; at += 74) parts.push(` ${line.slice(at, at + 74)}`);
    return parts;
  });
  return `${folded.join('\r\n')}\r\n`;
}

const sortBlocks = (blocks: ExpectedBlock[]) => blocks.sort((a, b) => a.start.localeCompare(b.start) || a.uid.localeCompare(b.uid));

/** The dates the feeds are built around, from `now`. */
export interface FeedDates {
  /** UTC midnight of today. */
  readonly today: number;
  /** The next last Sunday of March at least a week away. */
  readonly march: number;
  /** The next last Sunday of October at least a week away. */
  readonly october: number;
  /** The first of the two changes at least five weeks away: a weekly series runs across it. */
  readonly change: number;
}

export function feedDates(now: number): FeedDates {
  const today = now - (now % dayMs);
  const next = (month: number, margin: number) => {
    const year = new Date(today).getUTCFullYear();
    return [year, year + 1, year + 2].map((y) => lastSunday(y, month)).find((day) => day >= today + margin * dayMs) as number;
  };
  const march = next(3, 7);
  const october = next(10, 7);
  return { today, march, october, change: Math.min(next(3, 35), next(10, 35)) };
}

/**
 * Airbnb's "Export calendar": all-day `VALUE=DATE` events, `SUMMARY:Reserved` for a stay
 * (a DESCRIPTION with the reservation URL and the guest's phone digits, folded) and
 * `Airbnb (Not available)` for dates the host blocked; a PRODID with a parameter.
 */
export function airbnbFeed(now: number, zone: Zone = 'Europe/Berlin'): ChannelFeed {
  const { today, march, october } = feedDates(now);
  const events: [uid: string, from: number, to: number, summary: string, description?: string][] = [
    // A stay from the Saturday before the clocks go forward to the Tuesday after: 71 hours.
    ['1418fb94e984-3f1c2a0d9b7e4c55a6e1f2d3c4b5a697@airbnb.com', plus(march, -1), plus(march, 2), 'Reserved', 'HMQ4Z8XK2P'],
    ['1418fb94e984-8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d@airbnb.com', plus(today, 10), plus(today, 13), 'Reserved', 'HMB7T2W9RL'],
    // A stay of last week: still inside the 30 days an import reads back.
    ['1418fb94e984-0f1e2d3c4b5a69788796a5b4c3d2e1f0@airbnb.com', plus(today, -6), plus(today, -2), 'Reserved', 'HM5N3K8D1S'],
    // Blocked by the host across the clocks going back: the last Sunday of October has 25 hours.
    ['7f662ec65913-2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c1b@airbnb.com', plus(october, -2), plus(october, 12), 'Airbnb (Not available)'],
  ];
  // Ended 40 days ago: outside the window, no block.
  const past = ['1418fb94e984-deadbeefdeadbeefdeadbeefdeadbeef@airbnb.com', plus(today, -45), plus(today, -40), 'Reserved', 'HMOLD00000'] as const;
  const lines = ['BEGIN:VCALENDAR', 'PRODID;X-RICAL-TZSOURCE=TZINFO:-//Airbnb Inc//Hosting Calendar 0.8.8//EN', 'CALSCALE:GREGORIAN', 'VERSION:2.0'];
  for (const [uid, from, to, summary, code] of [...events, past]) {
    lines.push('BEGIN:VEVENT', `DTEND;VALUE=DATE:${icsDate(to)}`, `DTSTART;VALUE=DATE:${icsDate(from)}`, `UID:${uid}`);
    if (code) lines.push(`DESCRIPTION:Reservation URL: https://www.airbnb.com/hosting/reservations/details/${code}\\nPhone Number (Last 4 Digits): 4821`);
    lines.push(`SUMMARY:${summary}`, 'END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return { channel: 'airbnb', zone, text: calendar(lines), blocks: sortBlocks(events.map(([uid, from, to]) => allDayBlock(uid, zone, from, to))), skipped: 0 };
}

/**
 * Booking.com's export: all-day `CLOSED - Not available` events with a DTSTAMP and a hashed
 * UID, its PRODID with an escaped comma, `METHOD:PUBLISH`. Read in Lisbon (UTC+0 / +1).
 */
export function bookingComFeed(now: number, zone: Zone = 'Europe/Lisbon'): ChannelFeed {
  const { today, march, october } = feedDates(now);
  const events: [uid: string, from: number, to: number][] = [
    ['ab8907e00fb0089a06e5acfdea101250@booking.com', plus(today, 3), plus(today, 5)],
    // Across the clocks going forward: Friday to Monday, 71 hours.
    ['13bcc16d5d6b88c6aa2ea272d6f674a4@booking.com', plus(march, -2), plus(march, 1)],
    // The Saturday before the clocks go back, then the 25-hour Sunday on its own.
    ['5e0c1a2b3c4d5e6f7a8b9c0d1e2f3a4b@booking.com', plus(october, -1), october],
    ['fc52e780537991ebb203898f1feac3f4@booking.com', october, plus(october, 1)],
  ];
  const stamp = icsUtc(now - 3 * hourMs);
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//admin.booking.com\\, b.v.//NONSGML v1.0//EN', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH'];
  for (const [uid, from, to] of events) {
    lines.push('BEGIN:VEVENT', `DTSTAMP:${stamp}`, `DTSTART;VALUE=DATE:${icsDate(from)}`, `DTEND;VALUE=DATE:${icsDate(to)}`, `UID:${uid}`, 'SUMMARY:CLOSED - Not available', 'END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return { channel: 'booking.com', zone, text: calendar(lines), blocks: sortBlocks(events.map(([uid, from, to]) => allDayBlock(uid, zone, from, to))), skipped: 0 };
}

/** The VTIMEZONE Google writes for Europe/Berlin. */
const berlinTimezone = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'X-LIC-LOCATION:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
];

/**
 * A Google Calendar export (`X-WR-TIMEZONE`, the zone's VTIMEZONE, `DTSTART;TZID=…`) read
 * into a product in Lisbon, so a time read in the product's zone instead of its TZID is an
 * hour off: a weekly series across a clock change with an EXDATE, an overridden occurrence
 * (moved by RECURRENCE-ID) and a cancelled one; a single event in Berlin time, one in UTC,
 * an all-day one (the product's dates), and a `TRANSP:TRANSPARENT` (free) one, which blocks
 * nothing.
 */
export function googleFeed(now: number): ChannelFeed {
  const { today, change } = feedDates(now);
  const zone = 'Europe/Lisbon';
  const berlin = (day: number, hour: number, minute = 0) => day + hour * hourMs + minute * 60_000;
  const series = '6kq3m2p1r0s9t8u7v6w5x4y3z2@google.com';
  // Mondays: 4 weeks minus a day before the change, then weekly; two of them after it.
  const mondays = [-27, -20, -13, -6, 1, 8].map((days) => plus(change, days));
  const [m0, m1, m2, m3, m4, m5] = mondays as [number, number, number, number, number, number];
  const stamp = icsUtc(now - dayMs);
  const occurrence = (monday: number) => `${series}#${iso(wallToUtc('Europe/Berlin', berlin(monday, 10)))}`;
  const block = (uid: string, start: number, end: number): ExpectedBlock => ({ uid, start: iso(start), end: iso(end) });
  const inBerlin = (wall: number) => wallToUtc('Europe/Berlin', wall);
  const single = 'a1b2c3d4e5f6g7h8i9j0k1l2m3@google.com';
  const utc = 'n4o5p6q7r8s9t0u1v2w3x4y5z6@google.com';
  const allDay = 'c0ffee00c0ffee00c0ffee00c0@google.com';
  const free = 'f7ee0000f7ee0000f7ee0000f7@google.com';
  const cancelled = 'dead0000dead0000dead0000de@google.com';
  const lines = [
    'BEGIN:VCALENDAR',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'VERSION:2.0',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'X-WR-CALNAME:Ferienwohnung Mitte',
    'X-WR-TIMEZONE:Europe/Berlin',
    ...berlinTimezone,
    'BEGIN:VEVENT',
    `DTSTART;TZID=Europe/Berlin:${icsLocal(berlin(m0, 10))}`,
    `DTEND;TZID=Europe/Berlin:${icsLocal(berlin(m0, 12))}`,
    'RRULE:FREQ=WEEKLY;WKST=MO;COUNT=6;BYDAY=MO',
    `EXDATE;TZID=Europe/Berlin:${icsLocal(berlin(m1, 10))}`,
    `DTSTAMP:${stamp}`,
    `UID:${series}`,
    `CREATED:${stamp}`,
    'DESCRIPTION:',
    `LAST-MODIFIED:${stamp}`,
    'LOCATION:',
    'SEQUENCE:2',
    'STATUS:CONFIRMED',
    'SUMMARY:Cleaning',
    'TRANSP:OPAQUE',
    'END:VEVENT',
    // The third Monday moved to the afternoon.
    'BEGIN:VEVENT',
    `DTSTART;TZID=Europe/Berlin:${icsLocal(berlin(m2, 14))}`,
    `DTEND;TZID=Europe/Berlin:${icsLocal(berlin(m2, 16, 30))}`,
    `DTSTAMP:${stamp}`,
    `UID:${series}`,
    `RECURRENCE-ID;TZID=Europe/Berlin:${icsLocal(berlin(m2, 10))}`,
    'SEQUENCE:3',
    'STATUS:CONFIRMED',
    'SUMMARY:Cleaning (afternoon)',
    'TRANSP:OPAQUE',
    'END:VEVENT',
    // The fourth Monday cancelled.
    'BEGIN:VEVENT',
    `DTSTART;TZID=Europe/Berlin:${icsLocal(berlin(m3, 10))}`,
    `DTEND;TZID=Europe/Berlin:${icsLocal(berlin(m3, 12))}`,
    `DTSTAMP:${stamp}`,
    `UID:${series}`,
    `RECURRENCE-ID;TZID=Europe/Berlin:${icsLocal(berlin(m3, 10))}`,
    'SEQUENCE:3',
    'STATUS:CANCELLED',
    'SUMMARY:Cleaning',
    'END:VEVENT',
    'BEGIN:VEVENT',
    `DTSTART;TZID=Europe/Berlin:${icsLocal(berlin(plus(today, 20), 18))}`,
    `DTEND;TZID=Europe/Berlin:${icsLocal(berlin(plus(today, 22), 9, 15))}`,
    `DTSTAMP:${stamp}`,
    `UID:${single}`,
    'SUMMARY:Owner stay',
    'END:VEVENT',
    'BEGIN:VEVENT',
    `DTSTART:${icsUtc(berlin(plus(today, 40), 7))}`,
    `DTEND:${icsUtc(berlin(plus(today, 40), 19))}`,
    `DTSTAMP:${stamp}`,
    `UID:${utc}`,
    'SUMMARY:Maintenance',
    'END:VEVENT',
    'BEGIN:VEVENT',
    `DTSTART;VALUE=DATE:${icsDate(plus(today, 50))}`,
    `DTEND;VALUE=DATE:${icsDate(plus(today, 52))}`,
    `DTSTAMP:${stamp}`,
    `UID:${allDay}`,
    'SUMMARY:Family',
    'END:VEVENT',
    'BEGIN:VEVENT',
    `DTSTART;TZID=Europe/Berlin:${icsLocal(berlin(plus(today, 60), 9))}`,
    `DTEND;TZID=Europe/Berlin:${icsLocal(berlin(plus(today, 60), 10))}`,
    `DTSTAMP:${stamp}`,
    `UID:${free}`,
    'SUMMARY:Reminder: order towels',
    'TRANSP:TRANSPARENT',
    'END:VEVENT',
    'BEGIN:VEVENT',
    `DTSTART;TZID=Europe/Berlin:${icsLocal(berlin(plus(today, 61), 9))}`,
    `DTEND;TZID=Europe/Berlin:${icsLocal(berlin(plus(today, 63), 10))}`,
    `DTSTAMP:${stamp}`,
    `UID:${cancelled}`,
    'STATUS:CANCELLED',
    'SUMMARY:Called off',
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  const blocks = [
    block(occurrence(m0), inBerlin(berlin(m0, 10)), inBerlin(berlin(m0, 12))),
    block(occurrence(m2), inBerlin(berlin(m2, 14)), inBerlin(berlin(m2, 16, 30))),
    block(occurrence(m4), inBerlin(berlin(m4, 10)), inBerlin(berlin(m4, 12))),
    block(occurrence(m5), inBerlin(berlin(m5, 10)), inBerlin(berlin(m5, 12))),
    block(single, inBerlin(berlin(plus(today, 20), 18)), inBerlin(berlin(plus(today, 22), 9, 15))),
    block(utc, berlin(plus(today, 40), 7), berlin(plus(today, 40), 19)),
    allDayBlock(allDay, zone, plus(today, 50), plus(today, 52)),
  ];
  return { channel: 'google', zone, text: calendar(lines), blocks: sortBlocks(blocks), skipped: 0 };
}

/**
 * An Outlook / Exchange published calendar: a Windows zone name (`W. Europe Standard Time`,
 * not an IANA name) defined only by the feed's own VTIMEZONE (with Exchange's 1601 start),
 * busy events in winter and summer time, a daily series across the clocks going forward,
 * an all-day event, and `X-MICROSOFT-CDO-*` properties. Read into a product in Lisbon.
 */
export function outlookFeed(now: number): ChannelFeed {
  const { today, march } = feedDates(now);
  const zone = 'Europe/Lisbon';
  const tz = 'W. Europe Standard Time';
  const wall = (day: number, hour: number) => day + hour * hourMs;
  const inBerlin = (w: number) => wallToUtc('Europe/Berlin', w);
  const stamp = icsUtc(now - 2 * hourMs);
  const winter = plus(march, -10);
  const summer = plus(march, 20);
  const series = '040000008200E00074C5B7101A82E0080000000010A5C3D2E1F0D901000000000000000010000000B4E2C0A1F3D5E7094B6A8C0E2D4F6A8C';
  const ids = {
    winter: '040000008200E00074C5B7101A82E00800000000A1B2C3D4E5F6D901000000000000000010000000C1D2E3F4A5B6C7D8E9F0A1B2C3D4E5F6',
    summer: '040000008200E00074C5B7101A82E00800000000B2C3D4E5F6A7D901000000000000000010000000D2E3F4A5B6C7D8E9F0A1B2C3D4E5F6A7',
    allDay: '040000008200E00074C5B7101A82E00800000000C3D4E5F6A7B8D901000000000000000010000000E3F4A5B6C7D8E9F0A1B2C3D4E5F6A7B8',
  };
  const event = (uid: string, start: string, end: string, extra: string[] = []) => [
    'BEGIN:VEVENT',
    'DESCRIPTION:\\n',
    `UID:${uid}`,
    'SUMMARY:Busy',
    start,
    end,
    'CLASS:PUBLIC',
    'PRIORITY:5',
    `DTSTAMP:${stamp}`,
    'TRANSP:OPAQUE',
    'STATUS:CONFIRMED',
    'SEQUENCE:0',
    'LOCATION:',
    ...extra,
    'X-MICROSOFT-CDO-APPT-SEQUENCE:0',
    'X-MICROSOFT-CDO-BUSYSTATUS:BUSY',
    'X-MICROSOFT-CDO-INTENDEDSTATUS:BUSY',
    'X-MICROSOFT-CDO-IMPORTANCE:1',
    'X-MICROSOFT-CDO-INSTTYPE:0',
    'X-MICROSOFT-DONOTFORWARDMEETING:FALSE',
    'X-MICROSOFT-DISALLOW-COUNTER:FALSE',
    'END:VEVENT',
  ];
  const lines = [
    'BEGIN:VCALENDAR',
    'METHOD:PUBLISH',
    'PRODID:Microsoft Exchange Server 2010',
    'VERSION:2.0',
    'X-WR-CALNAME:Calendar',
    'BEGIN:VTIMEZONE',
    `TZID:${tz}`,
    'BEGIN:STANDARD',
    'DTSTART:16010101T030000',
    'TZOFFSETFROM:+0200',
    'TZOFFSETTO:+0100',
    'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=10',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'DTSTART:16010101T020000',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0200',
    'RRULE:FREQ=YEARLY;INTERVAL=1;BYDAY=-1SU;BYMONTH=3',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
    ...event(ids.winter, `DTSTART;TZID=${tz}:${icsLocal(wall(winter, 9))}`, `DTEND;TZID=${tz}:${icsLocal(wall(winter, 17))}`),
    ...event(ids.summer, `DTSTART;TZID=${tz}:${icsLocal(wall(summer, 9))}`, `DTEND;TZID=${tz}:${icsLocal(wall(summer, 17))}`),
    // Saturday, Sunday (the clocks go forward at 02:00) and Monday at 09:00.
    ...event(series, `DTSTART;TZID=${tz}:${icsLocal(wall(plus(march, -1), 9))}`, `DTEND;TZID=${tz}:${icsLocal(wall(plus(march, -1), 11))}`, ['RRULE:FREQ=DAILY;COUNT=3']),
    ...event(ids.allDay, `DTSTART;VALUE=DATE:${icsDate(plus(today, 15))}`, `DTEND;VALUE=DATE:${icsDate(plus(today, 16))}`, ['X-MICROSOFT-CDO-ALLDAYEVENT:TRUE']),
    'END:VCALENDAR',
  ];
  const day = (n: number) => plus(march, n);
  const blocks: ExpectedBlock[] = [
    { uid: ids.winter, start: iso(inBerlin(wall(winter, 9))), end: iso(inBerlin(wall(winter, 17))) },
    { uid: ids.summer, start: iso(inBerlin(wall(summer, 9))), end: iso(inBerlin(wall(summer, 17))) },
    ...[-1, 0, 1].map((n) => ({ uid: `${series}#${iso(inBerlin(wall(day(n), 9)))}`, start: iso(inBerlin(wall(day(n), 9))), end: iso(inBerlin(wall(day(n), 11))) })),
    allDayBlock(ids.allDay, zone, plus(today, 15), plus(today, 16)),
  ];
  return { channel: 'outlook', zone, text: calendar(lines), blocks: sortBlocks(blocks), skipped: 0 };
}

/**
 * A Google Calendar export of a shared calendar: two weekly series at the same hour (one
 * occurrence of the first cancelled, which must not cancel the second's), and the moved
 * instances of someone else's series the owner was invited to, without that series (Google
 * writes only the instances). UTC times, read into a product in Berlin.
 */
export function googleSharedFeed(now: number): ChannelFeed {
  const { today } = feedDates(now);
  // A Monday two to three weeks ahead, 10:00 UTC.
  const monday = plus(today, 14 + ((8 - new Date(today).getUTCDay()) % 7)) + 10 * hourMs;
  const week = 7 * dayMs;
  const stamp = icsUtc(now - dayMs);
  const [cleaning, viewing, meeting] = ['7q1cleaning0series0a@google.com', '7q2viewing00series0b@google.com', '0invited0instances0m@google.com'];
  const event = (uid: string, start: number, end: number, extra: string[] = []) => [
    'BEGIN:VEVENT',
    `DTSTART:${icsUtc(start)}`,
    `DTEND:${icsUtc(end)}`,
    `DTSTAMP:${stamp}`,
    `UID:${uid}`,
    ...extra,
    'END:VEVENT',
  ];
  const lines = [
    'BEGIN:VCALENDAR',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'VERSION:2.0',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'X-WR-CALNAME:Shared',
    'X-WR-TIMEZONE:UTC',
    ...event(cleaning, monday, monday + hourMs, ['RRULE:FREQ=WEEKLY;COUNT=3', 'SUMMARY:Cleaning']),
    ...event(viewing, monday, monday + 2 * hourMs, ['RRULE:FREQ=WEEKLY;COUNT=3', 'SUMMARY:Viewing']),
    ...event(cleaning, monday + week, monday + week + hourMs, [`RECURRENCE-ID:${icsUtc(monday + week)}`, 'STATUS:CANCELLED', 'SUMMARY:Cleaning']),
    // Two instances of a series that is not in the feed, each moved to the afternoon.
    ...event(meeting, monday + 4 * hourMs, monday + 5 * hourMs, [`RECURRENCE-ID:${icsUtc(monday)}`, 'SUMMARY:Owners meeting']),
    ...event(meeting, monday + week + 4 * hourMs, monday + week + 5 * hourMs, [`RECURRENCE-ID:${icsUtc(monday + week)}`, 'SUMMARY:Owners meeting']),
    'END:VCALENDAR',
  ];
  const block = (uid: string, occurrence: number, start: number, end: number): ExpectedBlock => ({ uid: `${uid}#${iso(occurrence)}`, start: iso(start), end: iso(end) });
  const blocks = [
    block(cleaning, monday, monday, monday + hourMs),
    block(cleaning, monday + 2 * week, monday + 2 * week, monday + 2 * week + hourMs),
    ...[0, 1, 2].map((n) => block(viewing, monday + n * week, monday + n * week, monday + n * week + 2 * hourMs)),
    ...[0, 1].map((n) => block(meeting, monday + n * week, monday + n * week + 4 * hourMs, monday + n * week + 5 * hourMs)),
  ];
  // The two series share their hour: two units.
  return { channel: 'google-shared', zone: 'Europe/Berlin', text: calendar(lines), blocks: sortBlocks(blocks), skipped: 0, units: 2 };
}

/**
 * A Google Calendar export of about `bytes` (never more): years of past events with folded
 * descriptions (outside the import window: read, then left out) and `ahead` two-hour events
 * from two days ahead, a day apart, read into a product in Berlin.
 */
export function pastHeavyFeed(now: number, bytes: number, ahead: number): ChannelFeed {
  const { today } = feedDates(now);
  const stamp = icsUtc(now - dayMs);
  const event = (uid: string, start: number, hours: number) =>
    [
      'BEGIN:VEVENT',
      `DTSTART;TZID=Europe/Berlin:${icsLocal(start)}`,
      `DTEND;TZID=Europe/Berlin:${icsLocal(start + hours * hourMs)}`,
      `DTSTAMP:${stamp}`,
      `UID:${uid}@google.com`,
      `CREATED:${stamp}`,
      'DESCRIPTION:Guest arrives by train\\, key in the box by the door (code 4821). Linen f',
      ' or two\\, a cot\\, late check-out asked for. Invoice to be sent after the stay.',
      `LAST-MODIFIED:${stamp}`,
      'SEQUENCE:0',
      'STATUS:CONFIRMED',
      'SUMMARY:Stay',
      'TRANSP:OPAQUE',
      'END:VEVENT',
      '',
    ].join('\r\n');
  const head = ['BEGIN:VCALENDAR', 'PRODID:-//Google Inc//Google Calendar 70.9054//EN', 'VERSION:2.0', 'X-WR-TIMEZONE:Europe/Berlin', ...berlinTimezone, ''].join('\r\n');
  const coming = Array.from({ length: ahead }, (_, i) => event(`ahead-${i}`, plus(today, 2 + i) + 15 * hourMs, 2));
  const tail = `${coming.join('')}END:VCALENDAR\r\n`;
  const past: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0, start = Date.UTC(2012, 0, 2, 14); start < today - 60 * dayMs; i += 1, start += 7 * hourMs) {
    const text = event(`past-${i}`, start, 3);
    if (size + text.length > bytes) break;
    past.push(text);
    size += text.length;
  }
  const blocks = Array.from({ length: ahead }, (_, i) => {
    const start = wallToUtc('Europe/Berlin', plus(today, 2 + i) + 15 * hourMs);
    return { uid: `ahead-${i}@google.com`, start: iso(start), end: iso(start + 2 * hourMs) };
  });
  return { channel: 'google-history', zone: 'Europe/Berlin', text: `${head}${past.join('')}${tail}`, blocks: sortBlocks(blocks), skipped: 0 };
}

/** Every channel's feed, built around `now`. */
export function channelFeeds(now: number): ChannelFeed[] {
  return [airbnbFeed(now), bookingComFeed(now), googleFeed(now), googleSharedFeed(now), outlookFeed(now)];
}
