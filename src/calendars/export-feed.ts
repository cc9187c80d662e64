import ical, { ICalEventStatus, foldLines } from 'ical-generator';
import type { ScopedQueries } from '../data/scoped-queries.js';
import type { Row } from '../data/record-codec.js';
import { holdsUnits } from '../booking/holdings.js';
import { getResource } from '../registry/index.js';

const bookings = getResource('bookings');
const dayMs = 24 * 60 * 60 * 1000;

/** The export window (docs/calendars.md "Export"): from 30 days ago to 2 years ahead. */
export function exportWindow(now: number): { from: number; to: number } {
  return { from: now - 30 * dayMs, to: now + 730 * dayMs };
}

/**
 * The bookings of a product an export shows, of every tenant (the product's units are its
 * own, whoever booked them): those overlapping the window that hold units at `now`, and
 * those cancelled or expired in the last 30 days (as cancellations). Only the columns the
 * feed prints are read: nothing personal leaves the database for it.
 */
export async function exportedBookings(queries: ScopedQueries, productId: string, now: number): Promise<Row[]> {
  const { from, to } = exportWindow(now);
  const at = (ms: number) => queries.dialect.toDb('timestamp', new Date(ms).toISOString()) as string;
  const rows = (await queries
    .asSystem()
    .scoped(bookings)
    .select(['_id', 'start_time', 'end_time', 'status', 'quantity', 'expires_at', 'created_at', 'updated_at'])
    .where('product_id', '=', productId)
    .where('start_time', '<', at(to))
    .where('end_time', '>', at(from))
    .orderBy('start_time')
    .orderBy('_id')
    .execute()) as Row[];
  return rows
    .map((row) => decoded(queries, row))
    .filter((row) => holdsUnits(row.status, row.expires_at, now) || (['cancelled', 'expired', 'held'].includes(String(row.status)) && Date.parse(String(row.updated_at)) >= from));
}

function decoded(queries: ScopedQueries, row: Row): Row {
  const time = (value: unknown) => queries.dialect.fromDb('timestamp', value);
  return { ...row, start_time: time(row.start_time), end_time: time(row.end_time), expires_at: time(row.expires_at), created_at: time(row.created_at), updated_at: time(row.updated_at) };
}

/**
 * The feed as RFC 5545 text, written by `ical-generator` (line folding at 75 octets,
 * escaping and CRLF are its job): one `VEVENT` per booking, `UID` `<booking id>@<host>`,
 * `DTSTAMP` its last change, UTC times, `SUMMARY` `Booked` or `Booked (N units)`, nothing
 * personal. A booking that holds no units (cancelled, expired, a lapsed hold) is a
 * cancellation, `STATUS:CANCELLED`, with a `SEQUENCE` above any it had while it held units:
 * the whole seconds from its creation to its last change, plus one once cancelled.
 */
export async function feedText(host: string, rows: readonly Row[], now: number): Promise<string> {
  const calendar = ical({ prodId: { company: 'booking-service', product: 'calendars', language: 'EN' } });
  // The calendar's frame from the library, with no events: everything up to its closing line.
  const frame = calendar.toString();
  const end = frame.lastIndexOf('END:VCALENDAR');
  const parts: string[] = [frame.slice(0, end)];
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index] as Row;
    const quantity = Number(row.quantity ?? 1);
    const holds = holdsUnits(row.status, row.expires_at, now);
    const created = Date.parse(String(row.created_at));
    const updated = Date.parse(String(row.updated_at));
    const event = calendar.createEvent({
      id: `${String(row._id)}@${host}`,
      start: new Date(String(row.start_time)),
      end: new Date(String(row.end_time)),
      stamp: new Date(updated),
      sequence: Math.max(0, Math.floor((updated - created) / 1000)) + (holds ? 0 : 1),
      summary: quantity > 1 ? `Booked (${quantity} units)` : 'Booked',
      ...(holds ? {} : { status: ICalEventStatus.CANCELLED }),
    });
    parts.push(folded(event.toString()));
    // A big feed is written in slices, so the instance keeps answering other requests.
    if (index % eventsPerSlice === eventsPerSlice - 1) await new Promise((resolve) => setImmediate(resolve));
  }
  parts.push('END:VCALENDAR\r\n');
  return parts.join('');
}

/** Events written between two yields to the event loop. */
const eventsPerSlice = 500;

/**
 * An event's lines folded at 75 octets (RFC 5545 §3.1), only those that need it. The library's
 * `foldLines` measures every character with a new `TextEncoder`, most of a big feed's export
 * time; its lines are all ASCII but for a product's host name, so an ASCII line is cut where
 * the library cuts it (74 characters a segment, the next after CRLF and a space), and any
 * other line still goes through the library.
 */
function folded(text: string): string {
  return text
    .split('\r\n')
    .map((line) => {
      if (!isAscii(line)) return foldLines(line);
      if (line.length <= 74) return line;
      const segments: string[] = [];
      for (let start = 0; start < line.length; start += 74) segments.push(line.slice(start, start + 74));
      return segments.join('\r\n ');
    })
    .join('\r\n');
}

/** Whether a line holds ASCII only: one octet per character. */
const isAscii = (line: string): boolean => Buffer.byteLength(line) === line.length;
