import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarApi } from '../../support/calendar-imports.js';
import type { CalendarApi } from '../../support/calendar-imports.js';
import { airbnbFeed, bookingComFeed, channelFeeds, feedDates, lastSunday, pastHeavyFeed } from '../../support/channel-feeds.js';
import type { ChannelFeed } from '../../support/channel-feeds.js';
import { dialects } from '../../support/databases.js';
import { startFeedServer } from '../../support/feed-server.js';
import type { FeedServer } from '../../support/feed-server.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/*
 * The feeds channels really publish (test/support/channel-feeds.ts), generated around now:
 * Airbnb's and Booking.com's all-day exports, a Google Calendar export with its VTIMEZONE,
 * a weekly series (EXDATE, a moved and a cancelled occurrence) across a clock change, a free
 * (TRANSPARENT) event, and an Outlook feed whose zone is a Windows name defined only by its
 * VTIMEZONE, a shared Google calendar (two series at one hour, one occurrence of one
 * cancelled; instances of a series the feed does not hold). Each import must hold exactly the
 * blocks worked out from the EU summer-time rule, in a product with one unit where events do
 * not overlap (back-to-back stays must not collide), and a second sync must change nothing.
 */
describe.each(dialects)('channel feeds on %s', (dialect) => {
  let h: Harness;
  let api: CalendarApi;
  let feeds: FeedServer;

  beforeAll(async () => {
    feeds = await startFeedServer();
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', CALENDAR_SYNC_SECONDS: '900', ACCESS_TOKEN_TTL_SECONDS: '86400' } });
    api = calendarApi(h.request, h.database, await h.bearer(await h.tenant('Channels'), [...crud('products'), ...crud('bookings')]));
  });
  afterAll(async () => {
    await h?.close();
    await feeds?.close();
  });

  /** Imports `feed` into a new product in its zone (one unit unless its events overlap); checks the answer and returns the ids. */
  async function imported(feed: ChannelFeed, path: string): Promise<{ productId: string; importId: string }> {
    const productId = await api.product(feed.units ?? 1, feed.zone);
    feeds.set(path, { body: feed.text });
    const created = await api.createImport(productId, `${feeds.origin}${path}`, { name: feed.channel });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ status: 'ok', last_error: null, events: feed.blocks.length, skipped: feed.skipped, conflicts: [], units: 1 });
    return { productId, importId: String(created.json()._id) };
  }

  it.each(channelFeeds(Date.now()).map((feed) => [feed.channel, feed] as const))('imports the %s feed as exactly its blocks, and a second sync changes nothing', async (channel, feed) => {
    const { productId, importId } = await imported(feed, `/${channel}.ics`);
    expect(await api.blocks(importId)).toEqual(feed.blocks);
    const rows = await api.bookings(productId);
    expect(rows.every((row) => row.source === 'calendar' && row.quantity === 1 && row.importId === importId && row.status === 'active')).toBe(true);

    const again = await api.sync(productId, importId);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ status: 'ok', events: feed.blocks.length, skipped: feed.skipped, conflicts: [] });
    // Not one row written: same rows, same ETags.
    expect(await api.bookings(productId)).toEqual(rows);
  });

  it('reads all-day dates in the product’s zone: the same Booking.com feed blocks other instants in Berlin than in Lisbon', async () => {
    const now = Date.now();
    const lisbon = bookingComFeed(now);
    const berlin = bookingComFeed(now, 'Europe/Berlin');
    expect(berlin.blocks.map((b) => b.uid)).toEqual(lisbon.blocks.map((b) => b.uid));
    // One hour earlier everywhere: Berlin's midnight is an hour ahead of Lisbon's all year.
    for (const [i, block] of berlin.blocks.entries()) expect(Date.parse(block.start)).toBe(Date.parse(lisbon.blocks[i]?.start ?? '') - 3_600_000);
    const { importId } = await imported(berlin, '/booking-berlin.ics');
    expect(await api.blocks(importId)).toEqual(berlin.blocks);
  });

  it('imports a 5 MB export with years of history in seconds: each event is read once, not against every other', async () => {
    const feed = pastHeavyFeed(Date.now(), 5_000_000, 20);
    expect(feed.text.length).toBeGreaterThan(4_990_000);
    expect(feed.text.split('BEGIN:VEVENT').length - 1).toBeGreaterThan(9_000);
    const started = Date.now();
    const { importId } = await imported(feed, '/history.ics');
    // Reading every event against all the others took 40-50 s here (ical.js relating each
    // override of the feed to each event), holding the event loop all that time.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await api.blocks(importId)).toEqual(feed.blocks);
  });

  it('blocks whole local days across both clock changes: 23, 24 and 25 hours long', async () => {
    const now = Date.now();
    const { march, october } = feedDates(now);
    // The fixture's own rule agrees with the calendar: the last Sundays of March and October.
    expect([new Date(march).getUTCDay(), new Date(march).getUTCMonth(), new Date(october).getUTCDay(), new Date(october).getUTCMonth()]).toEqual([0, 2, 0, 9]);
    expect(lastSunday(2027, 3)).toBe(Date.UTC(2027, 2, 28));
    expect(lastSunday(2027, 10)).toBe(Date.UTC(2027, 9, 31));
    const hoursOf = async (feed: ChannelFeed, path: string) => {
      const { importId } = await imported(feed, path);
      const blocks = await api.blocks(importId);
      return (uid: string) => blocks.filter((b) => b.uid.startsWith(uid)).map((b) => (Date.parse(b.end) - Date.parse(b.start)) / 3_600_000);
    };
    // Airbnb in Berlin: Saturday to Tuesday over the spring change (3 nights, one of 23 hours),
    // 14 nights over the autumn one (one of 25 hours).
    const airbnb = await hoursOf(airbnbFeed(now), '/airbnb-dst.ics');
    expect([airbnb('1418fb94e984-3f1c'), airbnb('7f662ec65913-')]).toEqual([[3 * 24 - 1], [14 * 24 + 1]]);
    // Booking.com in Lisbon: Friday to Monday over the spring change, the Saturday before the
    // autumn change, and that Sunday alone.
    const booking = await hoursOf(bookingComFeed(now), '/booking-dst.ics');
    expect([booking('13bcc16d5d6b'), booking('5e0c1a2b3c4d'), booking('fc52e7805379')]).toEqual([[71], [24], [25]]);
  });
});
