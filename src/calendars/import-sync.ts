import { assertCapacity } from '../booking/capacity.js';
import { maxBookingMs } from '../booking/booking-spans.js';
import type { Clock } from '../core/clock.js';
import { asSystem } from '../core/principal.js';
import type { RequestContext } from '../core/request-context.js';
import type { Database } from '../db/dialect.js';
import { withRowLock } from '../db/row-lock.js';
import type { Row } from '../data/record-codec.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { newId, runUnitOfWork } from '../data/unit-of-work.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError } from '../http/errors.js';
import type { AddressGuard } from '../lib/address-guard.js';
import type { Metrics } from '../observability/metrics.js';
import { getResource } from '../registry/index.js';
import { calendarImports } from '../registry/sub-collections/calendar-imports.js';
import { exportWindow } from './export-feed.js';
import { FeedError, fetchFeed } from './fetch-feed.js';
import { parseFeed } from './parse-feed.js';
import type { FeedEvent, ParsedFeed } from './parse-feed.js';

const bookings = getResource('bookings');
const products = getResource('products');
const systemContext: RequestContext = { principal: asSystem(), clientIp: null, requestId: null };

/** How imports are fetched and judged (docs/calendars.md "Import" and "Health"). */
export interface CalendarSyncSettings {
  readonly guard: AddressGuard;
  readonly allowHttp: boolean;
  /** `CALENDAR_SYNC_SECONDS`: the schedule, and a third of the time without success before `stale`. */
  readonly intervalSeconds: number;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
}

/** One conflict of an import: an event that did not fit the free units, not applied. */
interface Conflict {
  readonly external_uid: string;
  readonly start: string;
  readonly end: string;
  readonly available: number;
}

/**
 * Syncs calendar imports (docs/calendars.md "Import"): fetch and parse the whole feed first,
 * outside any transaction; then, in one transaction per import, apply the difference to its
 * blocks: vanished events cancel their block, moved ones move it, new ones insert one, each
 * held to the capacity invariant under the product's lock. An event that does not fit is
 * recorded as a conflict, announced once, never forced in. A failed fetch or parse changes
 * no block: a broken feed never wipes a calendar. Every change is audited as the system.
 */
export class CalendarSync {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly settings: CalendarSyncSettings,
    private readonly metrics?: Metrics,
  ) {}

  /** Syncs one import now, failed or not; `false` when the import (or its product) is gone. */
  async sync(importId: string): Promise<boolean> {
    const system = new ScopedQueries(this.database.db, this.database.dialect, asSystem());
    const record = await system.find(calendarImports, importId);
    const product = record && (await system.find(products, String(record.product_id)));
    if (!record || !product) return false;
    const now = this.clock.now();
    let feed: ParsedFeed;
    try {
      const text = await fetchFeed(String(record.url), {
        guard: this.settings.guard,
        allowHttp: this.settings.allowHttp,
        timeoutMs: this.settings.timeoutMs ?? 10_000,
        maxBytes: this.settings.maxBytes ?? 5 * 1024 * 1024,
        maxRedirects: 3,
      });
      const { from, to } = exportWindow(now);
      feed = parseFeed(text, { from, to, zone: String(product.time_zone ?? 'UTC') });
    } catch (error) {
      if (!(error instanceof FeedError)) throw error;
      await runUnitOfWork(this.database, this.clock, systemContext, (unit) => this.failed(unit, importId, error.message));
      this.metrics?.calendarSync('failed');
      return true;
    }
    const found = await runUnitOfWork(this.database, this.clock, systemContext, (unit) => this.apply(unit, importId, feed));
    this.metrics?.calendarSync('applied', found);
    return true;
  }

  /** Records a failed sync: `failing`, or `stale` once no sync succeeded for 3 intervals (announced once). */
  private async failed(unit: UnitOfWork, importId: string, reason: string): Promise<void> {
    const record = await unit.find(calendarImports, importId, { lock: 'update' });
    if (!record) return;
    const lastSuccess = Date.parse(String(unit.dialect.fromDb('timestamp', record.last_success_at ?? record.created_at)));
    // Without a schedule (CALENDAR_SYNC_SECONDS=0) nothing is expected when: an import is never stale.
    const stale = this.settings.intervalSeconds > 0 && unit.now - lastSuccess >= 3 * this.settings.intervalSeconds * 1000;
    const changes: Record<string, unknown> = { last_synced_at: unit.at, last_error: reason.slice(0, 500), status: stale ? 'stale' : 'failing' };
    if (stale && !record.stale_since) changes.stale_since = unit.at;
    const written = await unit.update(calendarImports, record, String(record.etag), changes, { audit: { old: null, new: { status: changes.status, last_error: changes.last_error } } });
    if (stale && !record.stale_since) await unit.announce(calendarImports, written.row, 'stale', 'calendars.stale', {});
  }

  /** Applies a parsed feed to the import's blocks in this transaction; returns how many new conflicts it found. */
  private async apply(unit: UnitOfWork, importId: string, feed: ParsedFeed): Promise<number> {
    // Lock order (docs/architecture.md "Lock order"): the import, its blocks, then the product.
    const record = await unit.find(calendarImports, importId, { lock: 'update' });
    if (!record) return 0;
    const productId = String(record.product_id);
    const blocks = (await withRowLock(
      unit.asSystem().scoped(bookings).selectAll().where('calendar_import_id', '=', importId).where('status', '=', 'active').orderBy('_id'),
      unit.dialect,
      'update',
    ).execute()) as Row[];
    const product = await unit.asSystem().find(products, productId, { lock: 'update' });
    if (!product) return 0;
    const total = Number(product.total_items);
    const units = Number(record.units ?? 1);
    const byUid = new Map(blocks.map((block) => [String(block.external_uid), block]));
    let skipped = feed.skipped;
    // A malformed event (or an occurrence of a malformed series) keeps its block as it was:
    // a broken event never frees units, as a broken feed never does.
    // So does a block that ended before the window the feed is read in: it is history, not a
    // vanished event (channels drop past stays from their feeds).
    const windowFrom = exportWindow(unit.now).from;
    const kept = blocks.filter((block) => {
      const uid = String(block.external_uid);
      const series = uid.includes('#') ? uid.slice(0, uid.lastIndexOf('#')) : uid;
      const past = Date.parse(String(unit.dialect.fromDb('timestamp', block.end_time))) <= windowFrom;
      return !feed.events.has(uid) && (past || feed.malformed.has(uid) || feed.malformed.has(series));
    });
    // Vanished events free their units first, so moves and new events may use them.
    for (const block of blocks) if (!feed.events.has(String(block.external_uid)) && !kept.includes(block)) await this.changeBlock(unit, block, { status: 'cancelled' });
    const conflicts: Conflict[] = [];
    const conflict = (uid: string, event: FeedEvent, available: number) =>
      conflicts.push({ external_uid: uid, start: new Date(event.start).toISOString(), end: new Date(event.end).toISOString(), available });
    const times = (event: FeedEvent) => ({ start_time: new Date(event.start).toISOString(), end_time: new Date(event.end).toISOString() });
    const at = (value: unknown) => Date.parse(String(unit.dialect.fromDb('timestamp', value)));
    const events = [...feed.events].sort(([a, x], [b, y]) => x.start - y.start || (a < b ? -1 : 1));
    let applied = kept.length;
    let moves: { uid: string; event: FeedEvent; block: Row; available: number }[] = [];
    const added: [string, FeedEvent][] = [];
    for (const [uid, event] of events) {
      if (event.end - event.start > maxBookingMs) {
        skipped += 1; // longer than any booking may last
        continue;
      }
      const block = byUid.get(uid);
      if (!block) added.push([uid, event]);
      else if (at(block.start_time) === event.start && at(block.end_time) === event.end) applied += 1;
      else moves.push({ uid, event, block, available: 0 });
    }
    applied += moves.length; // moved, or refused and kept where it was: a block either way
    // Moved events before new ones, and again while one moves: a moved block frees its old
    // place, which another move or a new event may need (a stay moved out and another booked
    // in its place, or moves along a chain). A move that never fits keeps its old block.
    for (let moved = true; moved && moves.length > 0;) {
      moved = false;
      const refused: typeof moves = [];
      for (const move of moves) {
        const available = await this.fits(unit, total, { productId, bookingId: String(move.block._id), event: move.event, units });
        if (available === undefined) {
          await this.changeBlock(unit, move.block, times(move.event));
          moved = true;
        } else refused.push({ ...move, available });
      }
      moves = refused;
    }
    for (const move of moves) conflict(move.uid, move.event, move.available);
    for (const [uid, event] of added) {
      const refused = await this.fits(unit, total, { productId, bookingId: undefined, event, units });
      if (refused !== undefined) {
        conflict(uid, event, refused);
        continue;
      }
      applied += 1;
      await unit.insert(bookings, {
        id: newId(unit),
        owner: (record.tenant_id as string | null) ?? null,
        values: { product_id: productId, ...times(event), status: 'active', quantity: units, source: 'calendar', calendar_import_id: importId, external_uid: uid },
      });
    }
    const previous = new Set(((unit.dialect.fromDb('object', record.conflicts) as Conflict[] | null) ?? []).map(conflictKey));
    const fresh = conflicts.filter((conflict) => !previous.has(conflictKey(conflict)));
    const written = await unit.update(
      calendarImports,
      record,
      String(record.etag),
      { last_synced_at: unit.at, last_success_at: unit.at, last_error: null, events: applied, skipped, conflicts, status: 'ok', stale_since: null },
      { audit: { old: null, new: { status: 'ok', events: applied, skipped, conflicts: conflicts.length } } },
    );
    for (const conflict of fresh) await unit.announce(calendarImports, written.row, 'conflict', 'calendars.conflict', { ...conflict });
    return fresh.length;
  }

  /** `undefined` when the event fits the product's free units (its span recorded), else the units that were free. */
  private async fits(unit: UnitOfWork, total: number, claim: { productId: string; bookingId: string | undefined; event: FeedEvent; units: number }): Promise<number | undefined> {
    try {
      await assertCapacity(unit, total, {
        productId: claim.productId,
        ...(claim.bookingId ? { bookingId: claim.bookingId } : {}),
        start: claim.event.start,
        end: claim.event.end,
        quantity: claim.units,
      });
      return undefined;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'capacity_exceeded') return Number((error.extensions as { available?: number } | undefined)?.available ?? 0);
      throw error;
    }
  }

  private async changeBlock(unit: UnitOfWork, block: Row, changes: Readonly<Record<string, unknown>>): Promise<void> {
    await unit.update(bookings, block, String(block.etag), changes);
  }
}

function conflictKey(conflict: Conflict): string {
  return `${conflict.external_uid} ${conflict.start} ${conflict.end}`;
}
