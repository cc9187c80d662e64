import { randomBytes } from 'node:crypto';
import type { Db } from '../db/dialect.js';
import { ApiError } from '../http/errors.js';
import type { Line } from './pricing.js';

/** How long a quote stands (docs/selling.md "Quotes"). */
export const quoteLifetimeMs = 15 * 60_000;

/** A quote as answered, and as an order made from it is charged. */
export interface Quote {
  readonly quote_id: string;
  readonly product_id: string;
  readonly start_time: string;
  readonly end_time: string;
  readonly quantity: number;
  readonly currency: string;
  readonly periods: number;
  readonly lines: readonly Line[];
  readonly total: number;
  readonly expires_at: string;
}

/**
 * A new quote id: the expiry in base 36, then 24 random bytes. The expiry in the id lets an
 * order tell a purged quote (`expired`) from an id that never named one (`invalid`); the
 * random part is what makes it unguessable, and nothing is read from the id but the time.
 */
function newQuoteId(expiresAt: number): string {
  return `q_${expiresAt.toString(36)}_${randomBytes(24).toString('base64url')}`;
}

/** The expiry a quote id carries, if it has the shape of one. */
function expiryOf(quoteId: string): number | undefined {
  const match = /^q_([0-9a-z]{1,12})_[A-Za-z0-9_-]{32}$/.exec(quoteId);
  return match?.[1] === undefined ? undefined : parseInt(match[1], 36);
}

/** Keeps a quote for {@link quoteLifetimeMs} in the database, where every instance reads it. */
export async function saveQuote(db: Db, tenantId: string | null, quote: Omit<Quote, 'quote_id' | 'expires_at'>, now: number): Promise<Quote> {
  const expiresAt = now + quoteLifetimeMs;
  const saved: Quote = { quote_id: newQuoteId(expiresAt), ...quote, expires_at: new Date(expiresAt).toISOString() };
  await db
    .insertInto('quotes')
    .values({ quote_id: saved.quote_id, tenant_id: tenantId, body: JSON.stringify(saved), expires_at: expiresAt })
    .execute();
  return saved;
}

const invalidQuote = (reason: 'expired' | 'invalid', detail: string) => new ApiError('invalid_quote', detail, { extensions: { reason } });

/**
 * The quote `quoteId` of the tenant `tenantId`, still standing at `now`.
 *
 * @throws ApiError `invalid_quote` (400): `reason` `expired` once its 15 minutes are over
 * (kept or purged), `invalid` for an id that names no quote of this tenant
 */
export async function loadQuote(db: Db, quoteId: string, tenantId: string | null, now: number): Promise<Quote> {
  const row = await db.selectFrom('quotes').select(['tenant_id', 'body', 'expires_at']).where('quote_id', '=', quoteId).executeTakeFirst();
  if (!row || row.tenant_id !== tenantId) {
    const expiry = expiryOf(quoteId);
    if (!row && expiry !== undefined && expiry <= now) throw invalidQuote('expired', 'The quote has expired: ask for a new one');
    throw invalidQuote('invalid', 'No such quote for this tenant');
  }
  if (Number(row.expires_at) <= now) throw invalidQuote('expired', 'The quote has expired: ask for a new one');
  return JSON.parse(row.body) as Quote;
}

/** Forgets quotes whose time is over (the expiry sweep); returns how many went. */
export async function purgeQuotes(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('quotes').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
