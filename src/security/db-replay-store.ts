import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { compiledOn } from '../data/query-template.js';
import type { ConnectionQuery } from '../data/query-template.js';
import type { Database } from '../db/dialect.js';
import type { ReplayNamespace, ReplayStore } from './replay-store.js';

/**
 * Claims (namespace, key) until `expiresAt`: a new row, or an expired row taken over; an
 * unexpired row stays and nothing changes. Values: namespace, key, expires at (twice: the
 * insert and the takeover), now.
 */
const claimStatement: ConnectionQuery = {
  values: 5,
  build: (db, [namespace, key, expiresAt, takeoverExpiresAt, now]) =>
    db
      .insertInto('replay_cache')
      .values({ namespace: namespace as string, key: key as string, expires_at: expiresAt as number })
      .onConflict((conflict) =>
        conflict
          .columns(['namespace', 'key'])
          .doUpdateSet({ expires_at: takeoverExpiresAt as number })
          .where('replay_cache.expires_at', '<=', now as number),
      ),
};

/**
 * {@link ReplayStore} in the service's database, shared by every instance using it. A claim
 * is one statement (compiled once): an insert against the (namespace, key) primary key that,
 * on conflict, takes over the row only if the earlier claim has expired. The database
 * decides, so two concurrent claims can never both win. Keys are stored as their SHA-256: a
 * `jti` is sender-chosen text, and PostgreSQL refuses some of it (a NUL byte) with an error
 * where a refusal or an acceptance is due.
 */
export class DatabaseReplayStore implements ReplayStore {
  private lastSweep = 0;

  constructor(private readonly database: Database) {}

  async claim(namespace: ReplayNamespace, rawKey: string, expiresAt: number, now: number): Promise<boolean> {
    const key = createHash('sha256').update(rawKey, 'utf8').digest('base64url');
    await this.sweep(now);
    const { db } = this.database;
    const result = await db.executeQuery(compiledOn(db, claimStatement, [namespace, key, expiresAt, expiresAt, now]));
    return Number(result.numAffectedRows ?? 0) === 1;
  }

  /** Removes expired rows at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60) return;
    this.lastSweep = now;
    await sql`delete from replay_cache where expires_at <= ${now}`.execute(this.database.db);
  }
}
