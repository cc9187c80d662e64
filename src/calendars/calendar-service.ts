import { createHash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { RequestContext } from '../core/request-context.js';
import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { notFound } from '../http/errors.js';
import { asSystem } from '../core/principal.js';
import { getResource } from '../registry/index.js';
import type { DataKey } from '../security/data-key.js';
import { exportedBookings, feedText } from './export-feed.js';
import { feedOf, productOfSecret, rotateFeed } from './feed-secrets.js';
import type { FeedAddress } from './feed-secrets.js';
import type { CalendarSync } from './import-sync.js';

const products = getResource('products');

/** A feed as the public route answers it: the text and its strong validator. */
export interface FeedAnswer {
  readonly text: string;
  readonly etag: string;
}

/** The export side of calendars and the on-demand sync (docs/calendars.md), shared by HTTP and the CLI. */
export class CalendarService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly dataKey: DataKey,
    /** `PUBLIC_URL`: feed URLs start with it, and event UIDs end with its host. */
    private readonly baseUrl: string,
    readonly sync: CalendarSync,
  ) {}

  /** A new secret feed URL for a product in the caller's reach; the old URL finds nothing from now on. Audited. */
  async rotate(context: RequestContext, productId: string): Promise<FeedAddress> {
    return runUnitOfWork(this.database, this.clock, context, async (unit) => {
      const product = await unit.find(products, productId, { lock: 'update' });
      if (!product) throw notFound(products.name);
      const tenantId = (product.tenant_id as string | null) ?? null;
      const address = await rotateFeed(unit.trx, this.dataKey, productId, tenantId, this.baseUrl, unit.now);
      await unit.audit({ category: 'data', action: 'calendar_feed_rotated', resource: products.name, recordId: productId, tenantId, oldValues: null, newValues: { created_at: address.created_at } });
      return address;
    });
  }

  /** The product's current feed URL (404 without one, or for a product out of reach). */
  async read(context: RequestContext, productId: string): Promise<FeedAddress> {
    const product = await new ScopedQueries(this.database.db, this.database.dialect, context.principal).find(products, productId);
    const feed = product && (await feedOf(this.database.db, this.dataKey, productId, this.baseUrl));
    if (!feed) throw notFound('calendar-feed');
    return feed;
  }

  /** The feed a secret opens, as of now; `undefined` for a secret that opens none (old, rotated or made up). */
  async feed(secret: string): Promise<FeedAnswer | undefined> {
    const productId = await productOfSecret(this.database.db, secret);
    if (productId === undefined) return undefined;
    const system = new ScopedQueries(this.database.db, this.database.dialect, asSystem());
    if (!(await system.find(products, productId))) return undefined;
    const now = this.clock.now();
    const text = await feedText(new URL(this.baseUrl).host, await exportedBookings(system, productId, now), now);
    return { text, etag: `"${createHash('sha256').update(text).digest('base64url')}"` };
  }
}
