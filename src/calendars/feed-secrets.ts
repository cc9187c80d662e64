import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/dialect.js';
import type { DataKey } from '../security/data-key.js';

/** A product's export feed as its owner sees it (docs/calendars.md "Export"). */
export interface FeedAddress {
  readonly url: string;
  readonly created_at: string;
}

/** The public path of a feed: the secret is the credential. */
export function feedPath(secret: string): string {
  return `/v1/calendars/${secret}.ics`;
}

function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Gives a product a new feed secret, replacing any earlier one in the same statement: the
 * old URL finds nothing from the commit on, on every instance (each request looks its
 * secret up; nothing caches it). The secret is kept sealed under the data key, so the
 * owner can read the URL again; requests find it by its hash.
 */
export async function rotateFeed(db: Db, dataKey: DataKey, productId: string, tenantId: string | null, baseUrl: string, now: number): Promise<FeedAddress> {
  const secret = randomBytes(32).toString('base64url');
  const row = { product_id: productId, tenant_id: tenantId, secret_hash: hashOf(secret), secret: dataKey.encrypt(secret), created_at: now };
  await db
    .insertInto('calendar_feeds')
    .values(row)
    .onConflict((conflict) => conflict.column('product_id').doUpdateSet({ secret_hash: row.secret_hash, secret: row.secret, created_at: now, tenant_id: tenantId }))
    .execute();
  return { url: `${baseUrl}${feedPath(secret)}`, created_at: new Date(now).toISOString() };
}

/** The product's current feed URL, if it has one. */
export async function feedOf(db: Db, dataKey: DataKey, productId: string, baseUrl: string): Promise<FeedAddress | undefined> {
  const row = await db.selectFrom('calendar_feeds').select(['secret', 'created_at']).where('product_id', '=', productId).executeTakeFirst();
  return row && { url: `${baseUrl}${feedPath(dataKey.decrypt(row.secret))}`, created_at: new Date(Number(row.created_at)).toISOString() };
}

/** The product a feed secret opens, if any (a constant-work lookup by hash, never by the secret itself). */
export async function productOfSecret(db: Db, secret: string): Promise<string | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
  const row = await db.selectFrom('calendar_feeds').select('product_id').where('secret_hash', '=', hashOf(secret)).executeTakeFirst();
  return row?.product_id;
}
