import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Db, SqlDialect } from '../db/dialect.js';
import { newRecordId } from '../lib/record-id.js';

/**
 * Crypto-shredding for the append-only audit trail: personal values in an entry's
 * `old_values`/`new_values` are stored encrypted (AES-256-GCM) with a data key of their
 * data subject, kept in `subject_keys`. Erasure destroys the subject's keys, so the entries
 * stay untouched (append-only) while their personal values can no longer be read.
 */

const prefix = 'enc:v1:';

/** What a sealed value reads as once its key is destroyed. */
export const erasedMarker = '[erased]';

/** Whether a stored value is a sealed one. */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(prefix);
}

/**
 * The current data key of `subject` (a user id, or `<resource>/<id>` for a record that
 * names no user), created on first use in the caller's transaction.
 */
export async function subjectKey(trx: Db, dialect: SqlDialect, subject: string, now: number): Promise<{ id: string; key: Buffer }> {
  const found = await trx.selectFrom('subject_keys').select(['_id', 'key']).where('subject_id', '=', subject).where('key', 'is not', null).orderBy('_id').limit(1).executeTakeFirst();
  if (found && typeof found.key === 'string') return { id: String(found._id), key: Buffer.from(found.key, 'base64') };
  const key = randomBytes(32);
  const id = newRecordId(now);
  await trx
    .insertInto('subject_keys')
    .values({ _id: id, subject_id: subject, key: key.toString('base64'), created_at: dialect.toDb('timestamp', new Date(now).toISOString()), destroyed_at: null })
    .execute();
  return { id, key };
}

/** `value` (any JSON) encrypted under the key: `enc:v1:<key id>:<iv>:<ciphertext>:<tag>`. */
export function seal(keyId: string, key: Buffer, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return `${prefix}${keyId}:${iv.toString('base64url')}:${body.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}`;
}

function keyIdOf(sealed: string): string {
  return sealed.slice(prefix.length).split(':')[0] ?? '';
}

/**
 * Opens sealed values with one key lookup for all of them; a value whose key was destroyed
 * (or cannot be opened) reads as {@link erasedMarker}.
 */
export async function openSealed(db: Db, sealed: readonly string[]): Promise<Map<string, unknown>> {
  const opened = new Map<string, unknown>();
  const ids = [...new Set(sealed.map(keyIdOf))];
  const keys = new Map<string, Buffer>();
  for (let start = 0; start < ids.length; start += 500) {
    const rows = await db.selectFrom('subject_keys').select(['_id', 'key']).where('_id', 'in', ids.slice(start, start + 500)).execute();
    for (const row of rows) if (typeof row.key === 'string') keys.set(String(row._id), Buffer.from(row.key, 'base64'));
  }
  for (const value of sealed) opened.set(value, open(value, keys));
  return opened;
}

function open(sealed: string, keys: ReadonlyMap<string, Buffer>): unknown {
  const [keyId = '', iv = '', body = '', tag = ''] = sealed.slice(prefix.length).split(':');
  const key = keys.get(keyId);
  if (!key) return erasedMarker;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(keyId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')) as unknown;
  } catch {
    return erasedMarker;
  }
}

/** Destroys every key of the subjects (erasure); returns how many keys were destroyed. */
export async function destroySubjectKeys(trx: Db, dialect: SqlDialect, subjects: readonly string[], now: number): Promise<number> {
  let destroyed = 0;
  const at = dialect.toDb('timestamp', new Date(now).toISOString());
  for (let start = 0; start < subjects.length; start += 500) {
    const result = await trx
      .updateTable('subject_keys')
      .set({ key: null, destroyed_at: at })
      .where('subject_id', 'in', subjects.slice(start, start + 500))
      .where('key', 'is not', null)
      .executeTakeFirst();
    destroyed += Number(result.numUpdatedRows);
  }
  return destroyed;
}
