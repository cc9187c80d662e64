import { createHash } from 'node:crypto';
import { sql, type CompiledQuery } from 'kysely';
import type { Database } from '../db/dialect.js';
import type { ReplayNamespace, ReplayStore } from './replay-store.js';

interface Claim {
  readonly namespace: ReplayNamespace;
  readonly key: string;
  readonly expiresAt: number;
  readonly now: number;
}

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
  // The statement is the same for every claim (one per token and per DPoP proof): built
  // and compiled once, then run with each claim's values.
  readonly #statement: CompiledQuery;
  readonly #slots: readonly ((claim: Claim) => unknown)[];

  constructor(private readonly database: Database) {
    // Distinct sentinels show where each value lands in the dialect's parameter list.
    const sentinels = { namespace: '\u0000namespace', key: '\u0000key', expiresAt: -1, conflictExpiresAt: -2, now: -3 } as const;
    this.#statement = database.db
      .insertInto('replay_cache')
      .values({ namespace: sentinels.namespace, key: sentinels.key, expires_at: sentinels.expiresAt })
      .onConflict((conflict) => conflict.columns(['namespace', 'key']).doUpdateSet({ expires_at: sentinels.conflictExpiresAt }).where('replay_cache.expires_at', '<=', sentinels.now))
      .compile();
    const roles: Record<string, (claim: Claim) => unknown> = {
      [sentinels.namespace]: (c) => c.namespace,
      [sentinels.key]: (c) => c.key,
      [sentinels.expiresAt]: (c) => c.expiresAt,
      [sentinels.conflictExpiresAt]: (c) => c.expiresAt,
      [sentinels.now]: (c) => c.now,
    };
    this.#slots = this.#statement.parameters.map((value) => {
      const slot = roles[String(value)];
      if (!slot) throw new Error(`replay store: unexpected parameter ${String(value)} in the compiled claim`);
      return slot;
    });
  }

  async claim(namespace: ReplayNamespace, rawKey: string, expiresAt: number, now: number): Promise<boolean> {
    const claim: Claim = { namespace, key: createHash('sha256').update(rawKey, 'utf8').digest('base64url'), expiresAt, now };
    await this.sweep(now);
    const result = await this.database.db.executeQuery({ ...this.#statement, parameters: this.#slots.map((slot) => slot(claim)) });
    return Number(result.numAffectedRows ?? 0) === 1;
  }

  /** Removes expired rows at most once a minute. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60) return;
    this.lastSweep = now;
    await sql`delete from replay_cache where expires_at <= ${now}`.execute(this.database.db);
  }
}
