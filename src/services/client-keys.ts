import { sql } from 'kysely';
import type { Db, SqlDialect } from '../db/dialect.js';
import { validationError } from '../http/errors.js';
import { clientKeyFromJwk, importClientPublicKey, PublicKeyError } from '../security/public-key.js';
import type { ClientKeyAlg, ClientPublicKey } from '../security/public-key.js';
import type { ClientKey } from '../security/client-assertion.js';
import type { KeyObject } from 'node:crypto';
import { BoundedCache } from '../lib/bounded-cache.js';
import { compiledOn } from '../data/query-template.js';
import type { ConnectionQuery } from '../data/query-template.js';

/** A client key as the API shows it (never key material beyond the public JWK thumbprint). */
export interface ClientKeyView {
  readonly kid: string;
  readonly alg: string;
  readonly thumbprint: string;
  readonly created_at: string;
  readonly active_until: string | null;
}

/**
 * Whether `kid` is an acceptable key id: 1 to 200 printable ASCII characters without
 * spaces, so it survives every header, log line and database it passes through.
 */
export function isValidKid(kid: unknown): kid is string {
  return typeof kid === 'string' && /^[\x21-\x7e]{1,200}$/.test(kid);
}

/** Validates a submitted SPKI PEM; a bad key is a 400 on `field`. */
export async function parsePublicKey(pem: string, field: string): Promise<ClientPublicKey> {
  try {
    return await importClientPublicKey(pem);
  } catch (error) {
    if (error instanceof PublicKeyError) throw validationError([{ field, message: error.message }]);
    throw error;
  }
}

/**
 * Stores a new key for a client and, when the client had keys, ends their validity
 * `overlapDays` from now (rotation with overlap). Returns the stored key's view.
 */
export async function addClientKey(
  trx: Db,
  dialect: SqlDialect,
  clientId: string,
  key: ClientPublicKey,
  kid: string | undefined,
  now: number,
  overlapDays: number,
): Promise<{ added: ClientKeyView; retired: string[] }> {
  const id = kid ?? key.thumbprint;
  const at = new Date(now).toISOString();
  const existing = await trx.selectFrom('api_client_keys').select(['kid', 'active_until']).where('client_id', '=', clientId).execute();
  if (existing.some((row) => row.kid === id)) throw validationError([{ field: 'kid', message: `the client already has a key with kid "${id}"` }]);
  const until = new Date(now + overlapDays * 86_400_000).toISOString();
  const retired: string[] = [];
  for (const row of existing) {
    const current = row.active_until as string | null;
    if (current !== null && current <= until) continue;
    await trx
      .updateTable('api_client_keys')
      .set({ active_until: dialect.toDb('timestamp', until) })
      .where('client_id', '=', clientId)
      .where('kid', '=', String(row.kid))
      .execute();
    retired.push(String(row.kid));
  }
  await trx
    .insertInto('api_client_keys')
    .values({ client_id: clientId, kid: id, alg: key.alg, jwk: JSON.stringify(key.jwk), thumbprint: key.thumbprint, created_at: dialect.toDb('timestamp', at), active_until: null })
    .execute();
  return { added: { kid: id, alg: key.alg, thumbprint: key.thumbprint, created_at: at, active_until: null }, retired };
}

/** The keys of some clients, oldest first, keyed by client id. */
export async function listClientKeys(db: Db, clientIds: readonly string[]): Promise<Map<string, ClientKeyView[]>> {
  const out = new Map<string, ClientKeyView[]>();
  if (clientIds.length === 0) return out;
  // A key added in the same millisecond as its predecessor must still list after it: the
  // current key (no active_until) sorts last among equal creation times.
  const rows = await db
    .selectFrom('api_client_keys')
    .selectAll()
    .where('client_id', 'in', [...clientIds])
    .orderBy('created_at')
    .orderBy(sql`active_until is null`)
    .orderBy('active_until')
    .execute();
  for (const row of rows) {
    const list = out.get(String(row.client_id)) ?? [];
    list.push({ kid: String(row.kid), alg: String(row.alg), thumbprint: String(row.thumbprint), created_at: String(row.created_at), active_until: (row.active_until as string | null) ?? null });
    out.set(String(row.client_id), list);
  }
  return out;
}

// One KeyObject per stored key: jose caches its conversion per key object, so rebuilding
// the object on every token request would pay the full import each time.
const importedKeys = new BoundedCache<string, KeyObject>(10_000);

/** A client's key by `kid`: at most two rows, so a duplicate is seen. */
const keyById: ConnectionQuery = {
  values: 2,
  build: (db, [clientId, kid]) =>
    db
      .selectFrom('api_client_keys')
      .selectAll()
      .where('client_id', '=', clientId as string)
      .where('kid', '=', kid as string)
      .limit(2),
};

/** The verification key an assertion names by `kid`; the lookup is compiled once (one per token request). */
export async function findClientKey(db: Db, clientId: string, kid: string): Promise<ClientKey | undefined> {
  const { rows } = await db.executeQuery<Record<string, unknown>>(compiledOn(db, keyById, [clientId, kid]));
  const row = rows.length === 1 ? rows[0] : undefined;
  if (!row) return undefined;
  const alg = String(row.alg) as ClientKeyAlg;
  const until = row.active_until as string | null;
  return {
    kid: String(row.kid),
    alg,
    key: importedKeys.get(`${alg}:${String(row.jwk)}`, () => clientKeyFromJwk(JSON.parse(String(row.jwk)) as Record<string, string>, alg)),
    activeUntil: until === null ? null : Math.floor(Date.parse(until) / 1000),
  };
}
