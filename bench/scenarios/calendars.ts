/**
 * Calendars (docs/calendars.md), in the booking tenant beside the availability catalogue:
 *
 * - `calendar-export`: `GET /v1/calendars/{secret}.ics` of a product with 10 000 bookings
 *   (seeded in bulk like the catalogue's; the ~9 000 that hold units are its events, the
 *   cancelled ones are older than the 30 days a feed shows), no token, no `If-None-Match`:
 *   every request writes the whole feed. One request at a time, as channels fetch a feed now
 *   and then (and because the feed is written synchronously: at 10 connections each request
 *   would wait behind nine whole feeds). Reported: CPU per request
 *   beside `availability-product`'s (selecting this scenario adds that one), no target.
 * - `calendar-import`: `POST /v1/products/{id}/calendar-imports/{id}/sync` of a 5 MB feed
 *   served by an HTTP server in this process (loopback; the service runs with
 *   `WEBHOOK_ALLOW_HTTP=true` and `WEBHOOK_ALLOWED_NETWORKS=127.0.0.1/32`), one sync at a
 *   time for `--duration` (at least one): fetch, parse, diff. The feed is a Google-style
 *   export: years of past events with descriptions (read and left out: outside the window),
 *   1 000 single events and 10 weekly series (520 occurrences) ahead, all TZID=Europe/Berlin.
 *   The import's first sync (which inserts its 1 520 blocks) is timed apart. The figure that
 *   matters is memory: the RSS before, the peak during, and the RSS after a full collection
 *   after the first sync and again after the last, as for `audit-export`.
 *
 * Both report `readyMaxMs`: the slowest answer to `GET /ready`, asked every 50 ms while the
 * scenario measures, i.e. how long the service's event loop was held at most.
 *
 * Each request runs to its end, warm-up included, so the measured phase shares the service
 * with no request of the warm-up.
 *
 * Before the load each answer is checked (the feed's event count against the seeded plan;
 * the import's block count against the feed), so a fast wrong answer fails the scenario.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { buildOperatorServices } from '../../cli/operator-services.js';
import { freePort } from '../../test/support/free-port.js';
import { bookingTenant } from '../booking-tenant.js';
import { insertProducts, seedBookedProducts } from '../catalogue.js';
import { cpuSeconds } from '../cpu-time.js';
import type { BenchClient } from '../fixtures.js';
import { settledFields, startService, toMb } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { es256Key } from '../jws.js';
import { fetchToken } from '../oauth-requests.js';
import { preflight } from '../preflight.js';
import { residentBytes, RssSampler } from '../rss-sampler.js';
import { seedOnce, withStorage } from '../seed-storage.js';
import { catalogue } from './availability.js';

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

/** Bookings of the exported product. */
export const exportBookings = 10_000;
/** The imported feed's size: under the service's 5 MiB limit on a feed. */
export const importFeedBytes = 5_000_000;

/** A client of the booking tenant that may give a product a feed URL and import feeds (`products:update`). */
function calendarsClient(ctx: BenchContext): Promise<BenchClient> {
  return seedOnce(ctx, 'calendars-client', async () => {
    const tenant = await bookingTenant(ctx);
    return withStorage(ctx.config, async (database) => {
      const key = es256Key();
      const keyFile = join(ctx.config.dataDir, 'bench-calendars.pub');
      writeFileSync(keyFile, key.publicPem);
      const created: Record<string, unknown> = await (
        await buildOperatorServices(ctx.config, database)
      ).createClient({ name: 'bench calendars', tenant: tenant.tenantId, capabilities: 'products:read products:update', publicKeyFile: keyFile, kid: 'bench-calendars', ipAllow: undefined });
      return { clientId: String(created._id), kid: String(created.kid), key };
    });
  });
}

interface ExportProduct {
  readonly productId: string;
  /** Its bookings that hold units: the feed's events. */
  readonly holding: number;
  readonly seconds: number;
}

/** The exported product and its 10 000 bookings over 2027, after the catalogue (so the bookings table is the catalogue's size). */
function exportProduct(ctx: BenchContext): Promise<ExportProduct> {
  return seedOnce(ctx, 'calendar-export-product', async () => {
    await catalogue(ctx);
    const tenant = await bookingTenant(ctx);
    return withStorage(ctx.config, async (database) => {
      const started = performance.now();
      const seeded = await seedBookedProducts(
        database,
        tenant.tenantId,
        { products: 1, bookingsPerProduct: exportBookings },
        // 500 units: 10 000 stays of 1-7 nights and 1-3 units over a year nearly all fit.
        () => ({
          name: 'Calendar export hostel',
          address: 'Rua do Ouro 1',
          city: 'Lisboa (calendars)',
          zip_code: '1100-060',
          country: 'PT',
          total_items: 500,
          is_published: true,
          time_zone: 'Europe/Lisbon',
        }),
        20_261_207,
        'CX',
      );
      const seconds = (performance.now() - started) / 1000;
      console.error(`  seeded 1 product with ${seeded.bookings} bookings (${seeded.holding} active) in ${seconds.toFixed(1)} s`);
      return { productId: seeded.productIds[0] ?? '', holding: seeded.holding, seconds };
    });
  });
}

const countOf = (text: string, needle: string) => text.split(needle).length - 1;

/** Answers `GET /ready` every 50 ms until stopped: the slowest answer shows how long the event loop was held. */
function readyProbe(origin: string): { stop: () => Promise<number> } {
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(`${origin}/ready`)).arrayBuffer();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return Math.round(slowest);
    },
  };
}

/** Sends `send` one at a time for `seconds` (at least once), each to its end; the milliseconds each took, sorted. */
async function oneAtATime(seconds: number, send: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  do {
    const started = performance.now();
    await send();
    times.push(performance.now() - started);
  } while (performance.now() < deadline);
  return times.sort((a, b) => a - b);
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const percentile = (sorted: readonly number[], q: number) => round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0, 1);

export async function calendarExportScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { options } = ctx;
  const product = await exportProduct(ctx);
  const client = await calendarsClient(ctx);
  const server = await startService(ctx);
  const sampler = new RssSampler(() => [server.pid]);
  let sampling = false;
  try {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, client);
    const rotated = await preflight(`${ctx.origin}/v1/products/${product.productId}/calendar-feed`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }, 201);
    const url = `${ctx.origin}${new URL(((await rotated.json()) as { url: string }).url).pathname}`;
    const feed = await preflight(url, {});
    const text = await feed.text();
    const events = countOf(text, 'BEGIN:VEVENT\r\n');
    if (feed.headers.get('content-type') !== 'text/calendar; charset=utf-8' || events !== product.holding || text.includes('STATUS:CANCELLED'))
      throw new Error(`calendar-export: the feed has ${events} events (${feed.headers.get('content-type')}), the seeded product holds units in ${product.holding} bookings and cancelled none lately`);
    let bytes = 0;
    const exportOnce = async () => {
      const answer = await fetch(url);
      const body = await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`calendar-export: the feed answered ${answer.status}`);
      bytes += body.byteLength;
    };
    const idle = residentBytes(server.pid);
    sampler.start();
    sampling = true;
    if (options.warmup > 0) await oneAtATime(options.warmup, exportOnce);
    bytes = 0;
    const probe = readyProbe(ctx.origin);
    const cpuBefore = cpuSeconds([server.pid]);
    const started = performance.now();
    const times = await oneAtATime(options.duration, exportOnce);
    const elapsed = (performance.now() - started) / 1000;
    const cpuAfter = cpuSeconds([server.pid]);
    const readyMaxMs = await probe.stop();
    const peak = sampler.stop();
    sampling = false;
    const settled = await server.settle?.();
    return {
      scenario: 'calendar-export',
      rps: round(times.length / elapsed, 2),
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
      peakRssMb: toMb(peak),
      ...settledFields(settled),
      cpuMsPerRequest: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / times.length, 1),
      phase: null,
      extra: {
        exports: times.length,
        bookings: exportBookings,
        exportedEvents: events,
        feedMb: round(Buffer.byteLength(text) / 1_048_576, 2),
        mbPerSecond: round(bytes / 1_048_576 / elapsed, 2),
        readyMaxMs,
        rssBeforeMb: toMb(idle),
        seedSeconds: round(product.seconds),
      },
    };
  } finally {
    if (sampling) sampler.stop();
    await server.stop();
  }
}

/** The imported feed and how many blocks it asks for. */
export interface ImportFeed {
  readonly body: Buffer;
  readonly events: number;
  /** Events and occurrences inside the import window: the import's blocks. */
  readonly blocks: number;
}

/**
 * A Google-style export of `bytes` (±1 KB, never above): the Europe/Berlin VTIMEZONE, past
 * events from 2012 on with folded descriptions (outside the window: parsed, left out), then
 * 1 000 two-hour events from 2 days ahead every 16 hours and 10 weekly series of 52 one-hour
 * occurrences. Nothing overlaps more than twice, so 10 units hold every block.
 */
export function importFeed(now: number, bytes = importFeedBytes): ImportFeed {
  const local = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15);
  const stamp = `${local(now - dayMs)}Z`;
  const head = [
    'BEGIN:VCALENDAR',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'VERSION:2.0',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    'X-WR-CALNAME:Bench flat',
    'X-WR-TIMEZONE:Europe/Berlin',
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
  const event = (uid: string, start: number, hours: number, extra: string[] = []) =>
    [
      'BEGIN:VEVENT',
      `DTSTART;TZID=Europe/Berlin:${local(start)}`,
      `DTEND;TZID=Europe/Berlin:${local(start + hours * hourMs)}`,
      ...extra,
      `DTSTAMP:${stamp}`,
      `UID:${uid}@google.com`,
      `CREATED:${stamp}`,
      // Folded as Google folds: 75 octets, then a space.
      'DESCRIPTION:Guest arrives by train\\, key in the box by the door (code 4821). Linen f',
      ' or two\\, a cot\\, late check-out asked for. Invoice to be sent after the stay.',
      `LAST-MODIFIED:${stamp}`,
      'LOCATION:Torstraße 1\\, 10119 Berlin\\, Germany',
      'SEQUENCE:0',
      'STATUS:CONFIRMED',
      'SUMMARY:Stay',
      'TRANSP:OPAQUE',
      'END:VEVENT',
    ].join('\r\n');
  const ahead: string[] = [];
  const first = Math.ceil(now / hourMs) * hourMs + 2 * dayMs;
  for (let i = 0; i < 1_000; i += 1) ahead.push(event(`ahead-${i}`, first + i * 16 * hourMs, 2));
  for (let k = 0; k < 10; k += 1) ahead.push(event(`weekly-${k}`, first + dayMs + k * 13 * hourMs, 1, ['RRULE:FREQ=WEEKLY;COUNT=52']));
  const tail = `${ahead.join('\r\n')}\r\nEND:VCALENDAR\r\n`;
  const past: string[] = [];
  let size = Buffer.byteLength(`${head.join('\r\n')}\r\n`) + Buffer.byteLength(tail);
  for (let i = 0, start = Date.UTC(2012, 0, 2, 14); ; i += 1, start += 7 * hourMs) {
    const text = `${event(`past-${i}`, start, 3)}\r\n`;
    if (size + Buffer.byteLength(text) > bytes || start > now - 60 * dayMs) break;
    past.push(text);
    size += Buffer.byteLength(text);
  }
  const body = Buffer.from(`${head.join('\r\n')}\r\n${past.join('')}${tail}`);
  return { body, events: past.length + ahead.length, blocks: 1_000 + 10 * 52 };
}

/** Serves `feed` on loopback in this process. */
async function serveFeed(feed: Buffer): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => void response.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8', 'content-length': String(feed.length) }).end(feed));
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/calendar.ics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function calendarImportScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { options } = ctx;
  const client = await calendarsClient(ctx);
  const tenant = await bookingTenant(ctx);
  // A product of its own; each round imports into it afresh (the last round's import is deleted).
  const productId = await seedOnce(ctx, 'calendar-import-product', () =>
    withStorage(ctx.config, async (database) => {
      const { ids } = await insertProducts(database, tenant.tenantId, 1, () => ({
        name: 'Calendar import flat',
        address: 'Torstraße 1',
        city: 'Berlin (calendars)',
        zip_code: '10119',
        country: 'DE',
        total_items: 10,
        is_published: true,
        time_zone: 'Europe/Berlin',
      }));
      return ids[0] ?? '';
    }),
  );
  const feed = importFeed(Date.now());
  const served = await serveFeed(feed.body);
  // The feed server is on loopback: allowed explicitly, as an operator would for an internal one.
  const server = await startService({ ...ctx, serviceEnv: { ...ctx.serviceEnv, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
  const sampler = new RssSampler(() => [server.pid]);
  let sampling = false;
  try {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, client);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const idle = residentBytes(server.pid);
    sampler.start();
    sampling = true;
    const firstStarted = performance.now();
    const created = await fetch(`${ctx.origin}/v1/products/${productId}/calendar-imports`, { method: 'POST', headers, body: JSON.stringify({ url: served.url, name: 'Google' }) });
    const firstSyncMs = performance.now() - firstStarted;
    const record = (await created.json()) as Record<string, unknown>;
    const check = (answer: Response, body: Record<string, unknown>, what: string) => {
      if (answer.status >= 300 || body.status !== 'ok' || body.events !== feed.blocks || body.skipped !== 0 || (body.conflicts as unknown[] | undefined)?.length !== 0)
        throw new Error(`calendar-import: ${what} answered ${answer.status} ${JSON.stringify(body).slice(0, 600)}; the feed asks for ${feed.blocks} blocks`);
    };
    check(created, record, 'the import');
    const afterFirst = await server.settle?.();
    const syncUrl = `${ctx.origin}/v1/products/${productId}/calendar-imports/${String(record._id)}/sync`;
    const syncOnce = async () => {
      const answer = await fetch(syncUrl, { method: 'POST', headers: { authorization: headers.authorization } });
      check(answer, (await answer.json()) as Record<string, unknown>, 'a sync');
    };
    if (options.warmup > 0) await oneAtATime(options.warmup, syncOnce);
    const probe = readyProbe(ctx.origin);
    const cpuBefore = cpuSeconds([server.pid]);
    const measuredStarted = performance.now();
    const times = await oneAtATime(options.duration, syncOnce);
    const elapsed = (performance.now() - measuredStarted) / 1000;
    const cpuAfter = cpuSeconds([server.pid]);
    const readyMaxMs = await probe.stop();
    const peak = sampler.stop();
    sampling = false;
    const settled = await server.settle?.();
    // Gone before the next round: its blocks are cancelled, so the next import fits again.
    const current = await fetch(`${ctx.origin}/v1/products/${productId}/calendar-imports/${String(record._id)}`, { headers: { authorization: headers.authorization } });
    await fetch(`${ctx.origin}/v1/products/${productId}/calendar-imports/${String(record._id)}`, {
      method: 'DELETE',
      headers: { authorization: headers.authorization, 'if-match': current.headers.get('etag') ?? '*' },
    });
    return {
      scenario: 'calendar-import',
      rps: round(times.length / elapsed, 3),
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
      peakRssMb: toMb(peak),
      ...settledFields(settled),
      cpuMsPerRequest: cpuBefore === null || cpuAfter === null ? null : Math.round(((cpuAfter - cpuBefore) * 1000) / times.length),
      phase: null,
      extra: {
        syncs: times.length,
        feedMb: round(feed.body.length / 1_048_576, 2),
        feedEvents: feed.events,
        blocks: feed.blocks,
        firstSyncMs: Math.round(firstSyncMs),
        readyMaxMs,
        rssBeforeMb: toMb(idle),
        settledAfterFirstSyncMb: toMb(afterFirst?.rss ?? null),
        settledHeapAfterFirstSyncMb: toMb(afterFirst?.heapUsed ?? null),
      },
    };
  } finally {
    if (sampling) sampler.stop();
    await server.stop();
    await served.close();
  }
}
