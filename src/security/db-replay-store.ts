import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/dialect.js';
import type { ReplayNamespace, ReplayStore } from './replay-store.js';

/**
 * {@link ReplayStore} in the service's database, shared by every instance using it. A claim
 * is one statement: an insert against the (namespace, key) primary key that, on conflict,
 * takes over the row only if the earlier claim has expired. The database decides, so two
 * concurrent claims can never both win. Keys are
 * stored as their SHA-256: a `jti` is sender-chosen text, and PostgreSQL refuses some of it
 * (a NUL byte) with an error where a refusal or an acceptance is due.
 */
export class DatabaseReplayStore implements ReplayStore {
  private lastSweep = 0;

  constructor(private readonly database: Database) {}

  async claim(namespace: ReplayNamespace, rawKey: string, expiresAt: number, now: number): Promise<boolean> {
    const key = createHash('sha256').update(rawKey, 'utf8').digest('base64url');
    await this.sweep(now);
    const result = await this.database.db
      .insertInto('replay_cache')
      .values({ namespace, key, expires_at: expiresAt })
      .onConflict((conflict) =>
        conflict
          .columns(['namespace', 'key'])
          .doUpdateSet({ expires_at: expiresAt })
          .where('replay_cache.expires_at', '<=', now),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Removes expired rows at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60) return;
    this.lastSweep = now;
    await sql`delete from replay_cache where expires_at <= ${now}`.execute(this.database.db);
  }
}
