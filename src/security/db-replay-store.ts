import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/dialect.js';
import type { ReplayNamespace, ReplayStore } from './replay-store.js';

/**
 * {@link ReplayStore} in the service's database, shared by every instance using it. A claim
 * is one insert against the (namespace, key) primary key; an expired row is first removed
 * in the same statement sequence, so the unique insert remains the only arbiter. Keys are
 * stored as their SHA-256: a `jti` is sender-chosen text, and PostgreSQL refuses some of it
 * (a NUL byte) with an error where a refusal or an acceptance is due.
 */
export class DatabaseReplayStore implements ReplayStore {
  private lastSweep = 0;

  constructor(private readonly database: Database) {}

  async claim(namespace: ReplayNamespace, rawKey: string, expiresAt: number, now: number): Promise<boolean> {
    const { db, dialect } = this.database;
    const key = createHash('sha256').update(rawKey, 'utf8').digest('base64url');
    await this.sweep(now);
    // An expired claim of this exact key may still be stored; drop it so the key is reusable.
    await db.deleteFrom('replay_cache').where('namespace', '=', namespace).where('key', '=', key).where('expires_at', '<=', now).execute();
    try {
      await db.insertInto('replay_cache').values({ namespace, key, expires_at: expiresAt }).execute();
      return true;
    } catch (error) {
      if (dialect.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Removes expired rows at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60) return;
    this.lastSweep = now;
    await sql`delete from replay_cache where expires_at <= ${now}`.execute(this.database.db);
  }
}
