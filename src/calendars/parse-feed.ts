import ICAL from 'ical.js';
import { maxBookingMs } from '../booking/booking-spans.js';
import { midnightOf } from '../booking/time-slots.js';
import { instantOf, isTimeZone } from '../lib/time-zone.js';
import { FeedError } from './fetch-feed.js';

/** One event of a feed as a block asks for it: `[start, end)` in epoch ms. */
export interface FeedEvent {
  readonly start: number;
  readonly end: number;
}

/** A parsed feed: its events by `external_uid`, and how many malformed ones were skipped. */
export interface ParsedFeed {
  readonly events: ReadonlyMap<string, FeedEvent>;
  readonly skipped: number;
  /** The UIDs of the skipped events that had one: their blocks stay as they were. */
  readonly malformed: ReadonlySet<string>;
}

/** Where a feed's events are read (docs/calendars.md "Import"). */
export interface FeedWindow {
  /** Events ending at or before this are past and ignored. */
  readonly from: number;
  /** Events (and occurrences) starting at or after this are ignored: 2 years ahead. */
  readonly to: number;
  /** The product's zone: all-day events cover its local dates, floating times read in it. */
  readonly zone: string;
}

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

/** Recurrence steps one feed may take in all, before the window and in it: a feed cannot make the service loop. */
const maxSteps = 1_000_000;

/** Occurrences expanded per recurring event at most: a feed cannot make the service loop. */
const maxOccurrences = 5_000;

/**
 * Parses a whole feed before anything is applied (docs/calendars.md "Import"): the body must
 * be one `VCALENDAR`; every `VEVENT` is read, recurring ones expanded over the window
 * (`RRULE`, `RDATE`, `EXDATE`, overridden occurrences by `RECURRENCE-ID`). Times with an IANA
 * `TZID` are read in that zone, other `TZID`s through the feed's own `VTIMEZONE`, floating
 * times and all-day dates in the product's zone. `STATUS:CANCELLED` and `TRANSP:TRANSPARENT`
 * events block nothing. A malformed event is skipped and counted; the rest stand.
 *
 * @throws FeedError when the body is not an iCalendar `VCALENDAR` or cannot be parsed
 */
export function parseFeed(feedText: string, window: FeedWindow): ParsedFeed {
  // A UTF-8 byte order mark, as some exporters write one, is not part of the first line.
  const text = feedText.startsWith('\uFEFF') ? feedText.slice(1) : feedText;
  if (!/^\s*BEGIN:VCALENDAR/i.test(text.slice(0, 1024))) throw new FeedError('the body is not an iCalendar VCALENDAR');
  let calendar: Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  } catch (error) {
    throw new FeedError(`the feed could not be parsed: ${(error as Error).message.slice(0, 200)}`);
  }
  if (calendar.name !== 'vcalendar') throw new FeedError('the body is not an iCalendar VCALENDAR');
  const zones = new Map(calendar.getAllSubcomponents('vtimezone').map((vtz: Component) => [String(vtz.getFirstPropertyValue('tzid')), new ICAL.Timezone(vtz)] as const));
  const vevents = calendar.getAllSubcomponents('vevent');
  // Overridden occurrences (RECURRENCE-ID) belong to their series, by UID.
  const exceptions = new Map<string, Component[]>();
  const series = new Set<string>();
  for (const vevent of vevents) {
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    if (!vevent.hasProperty('recurrence-id')) series.add(uid);
    else exceptions.set(uid, [...(exceptions.get(uid) ?? []), vevent]);
  }
  const events = new Map<string, FeedEvent>();
  const malformed = new Set<string>();
  let skipped = 0;
  let steps = 0;
  const reader = timeReader(zones, window.zone);
  for (const vevent of vevents) {
    let uid: unknown;
    try {
      uid = vevent.getFirstPropertyValue('uid');
      if (typeof uid !== 'string' || uid === '' || !vevent.hasProperty('dtstart')) throw new Error('no UID or DTSTART');
      const override = vevent.hasProperty('recurrence-id');
      // Read with its series when that series exists; alone (an override without it) otherwise.
      if (override && series.has(uid)) continue;
      // Given its own overrides: left to itself, ical.js would relate every override in the
      // feed, whatever its UID, to every event (scanning them all for each event).
      const event = new ICAL.Event(vevent, { strictExceptions: false, exceptions: override ? [] : (exceptions.get(uid) ?? []) });
      if (!event.isRecurring()) {
        const block = blockOf(vevent, reader(event.startDate), reader(endOf(event)), window);
        if (block === 'invalid') throw new Error('end before start');
        const key = vevent.hasProperty('recurrence-id') ? occurrenceUid(uid, reader(event.recurrenceId)) : uid;
        if (block) events.set(key, block);
        continue;
      }
      const expansion = event.iterator();
      for (let count = 0; count < maxOccurrences;) {
        // A series that began long ago walks up to the window cheaply, within the feed's budget.
        if ((steps += 1) > maxSteps) throw new Error('the recurrences take too many steps');
        const next = expansion.next();
        if (!next) break;
        const start = reader(next);
        if (start >= window.to) break;
        if (start < window.from - maxBookingMs) continue;
        count += 1;
        const details = event.getOccurrenceDetails(next);
        const item = details.item.component;
        const block = blockOf(item, reader(details.startDate), reader(details.endDate), window);
        if (block === 'invalid') throw new Error('an occurrence ends before it starts');
        if (block) events.set(occurrenceUid(uid, start), block);
      }
    } catch {
      skipped += 1;
      if (typeof uid === 'string' && uid !== '') malformed.add(uid);
    }
  }
  return { events, skipped, malformed };
}

/** A recurring event's occurrence: the series' UID and the occurrence's original start (its RECURRENCE-ID), in UTC. */
function occurrenceUid(uid: string, recurrenceId: number): string {
  return `${uid}#${new Date(recurrenceId).toISOString()}`;
}

/** An event's end: DTEND, else DTSTART + DURATION, else a day after an all-day start (RFC 5545 §3.6.1), else its start. */
function endOf(event: InstanceType<typeof ICAL.Event>): Time {
  if (event.component.hasProperty('dtend') || event.component.hasProperty('duration')) return event.endDate;
  const end = event.startDate.clone();
  if (end.isDate) end.day += 1;
  return end;
}

/** The block an event asks for in the window; `null` when it blocks nothing there, `invalid` when malformed. */
function blockOf(vevent: Component, start: number, end: number, window: FeedWindow): FeedEvent | null | 'invalid' {
  if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) return 'invalid';
  const status = String(vevent.getFirstPropertyValue('status') ?? '').toUpperCase();
  const transparency = String(vevent.getFirstPropertyValue('transp') ?? '').toUpperCase();
  if (status === 'CANCELLED' || transparency === 'TRANSPARENT') return null;
  if (end === start || end <= window.from || start >= window.to) return null;
  return { start, end };
}

/** Reads an iCalendar time as an instant (epoch ms), by the zone rules above. */
function timeReader(zones: ReadonlyMap<string, InstanceType<typeof ICAL.Timezone>>, productZone: string): (time: Time) => number {
  // Whether a TZID is an IANA name, once per feed: asking Intl builds a formatter each time.
  const known = new Map<string, boolean>();
  return (time) => {
    const wall = Date.UTC(time.year, time.month - 1, time.day, time.isDate ? 0 : time.hour, time.isDate ? 0 : time.minute, time.isDate ? 0 : time.second);
    if (time.isDate) return midnightOf(productZone, wall);
    // An unregistered TZID stays on the time as `timezone` (ical.js registers none of ours).
    const tzid = time.zone?.tzid === 'floating' || time.zone === undefined ? (time as unknown as { timezone?: string }).timezone : time.zone.tzid;
    if (tzid === 'UTC' || tzid === 'Z') return wall;
    if (typeof tzid === 'string' && tzid !== 'floating') {
      let iana = known.get(tzid);
      if (iana === undefined) known.set(tzid, (iana = isTimeZone(tzid)));
      if (iana) return instantOf(tzid, wall);
      const zone = zones.get(tzid);
      if (zone) {
        const copy = time.clone();
        copy.zone = zone;
        return copy.toUnixTime() * 1000;
      }
    }
    return instantOf(productZone, wall);
  };
}
