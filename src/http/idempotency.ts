import { createHash } from 'node:crypto';
import type { Database, Db } from '../db/dialect.js';
import type { Clock } from '../core/clock.js';
import { canonicalJson } from '../core/etag.js';
import { ApiError, validationError } from './errors.js';

/** How long a stored answer is replayed (draft-ietf-httpapi-idempotency-key-header). */
export const replayWindowMs = 24 * 60 * 60 * 1000;

/** How long a first request may run before a retry with the same key may take over (it crashed). */
const leaseMs = 120_000;

/** Claims of a key that keeps being released under the claimant before it answers 409. */
const maxClaimAttempts = 3;

/** The header value: 1–255 printable ASCII characters. */
const validKey = /^[\x20-\x7e]{1,255}$/;

/** Encrypts stored answers at rest: the service's data key (`security/data-key.ts`). */
export interface AnswerSealer {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

/** A stored answer, replayed as it was first sent. */
export interface StoredAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** The record a stored answer is about: erasure of its data subject depersonalises the answer too. */
export interface AnswerRecord {
  readonly resource: string;
  readonly recordId: string;
}

/** What a request carrying an `Idempotency-Key` should do. */
export type Claim =
  | {
      readonly kind: 'run';
      /** Marks the key used by the change, in the change's own transaction `trx`: from its commit on, the change never runs again for this key. */
      committing(trx: Db, record?: AnswerRecord): Promise<void>;
      complete(answer: StoredAnswer, record?: AnswerRecord): Promise<void>;
      release(): Promise<void>;
    }
  | { readonly kind: 'replay'; readonly answer: StoredAnswer }
  /** The first request's change committed but its answer was never stored (the process died in between): the record it is about, if known. */
  | { readonly kind: 'committed'; readonly record: AnswerRecord | undefined };

/**
 * Idempotency keys for POST requests, stored in the database so every instance sees them.
 * The first request with a key claims it with one atomic insert (or takes over an expired
 * row); a repeat with the same body replays the stored answer, with a different body is
 * refused (422), and while the first still runs is refused (409). Only executed requests
 * (2xx) are stored: a refused request (400, 404, 412…) changed nothing, so its key is
 * released and may be retried. A stored body is sealed under the data key: some answers
 * carry a secret shown once (a webhook's signing secret), which must not sit readable in
 * the database or its backups for the replay window.
 */
export class IdempotencyKeys {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly dataKey: AnswerSealer,
  ) {}

  /**
   * Claims `key` for `scope` (principal and URL) and a request body.
   *
   * @throws ApiError `validation_failed` for a malformed key, `idempotency_key_in_use`,
   *   `idempotency_key_reused`
   */
  async claim(scope: string, key: string, body: unknown): Promise<Claim> {
    const now = this.clock.now();
    if (!validKey.test(key)) throw validationError([{ field: 'Idempotency-Key', message: 'must be 1-255 printable ASCII characters' }]);
    const fingerprint = createHash('sha256')
      .update(canonicalJson(body ?? null))
      .digest('base64url');
    const { db, dialect } = this.database;
    const fresh = { scope, key, fingerprint, state: 'running', status: null, headers: null, body: null, created_at: now, expires_at: now + leaseMs, resource: null, record_id: null };
    let row;
    for (let attempt = 1; !row; attempt += 1) {
      const inserted = await db
        .insertInto('idempotency_keys')
        .values(fresh)
        .onConflict((conflict) => conflict.columns(['scope', 'key']).doUpdateSet(fresh).where('idempotency_keys.expires_at', '<=', now))
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return this.running(scope, key);
      row = await db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
      // Released between the two statements (the first request was refused, or its lease
      // ran out and was purged): the key is free, so claim it again rather than answer as
      // if it were held. A key claimed and released over and over gets a 409 at last.
      if (!row && attempt === maxClaimAttempts) throw keyInUse('Retry the request');
    }
    if (row.fingerprint !== fingerprint) throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was first used with a different body; use a new key for a new request');
    if (row.state === 'committed') return { kind: 'committed', record: row.resource && row.record_id ? { resource: row.resource, recordId: row.record_id } : undefined };
    if (row.state !== 'done') throw keyInUse('The first request with this Idempotency-Key is still running; retry once it has finished');
    return {
      kind: 'replay',
      answer: { status: Number(row.status), headers: dialect.fromDb('object', row.headers) as Record<string, string>, body: this.unseal(dialect.fromDb('object', row.body)) },
    };
  }

  /**
   * Rewrites the stored answers about `recordIds` of `resource` with `replace`, in the
   * caller's transaction `trx`: erasure depersonalises them as it does the records, so a
   * replay never shows an erased value (docs/api.md "Idempotency keys").
   */
  async rewriteAnswers(trx: Db, resource: string, recordIds: readonly string[], replace: (body: Record<string, unknown>) => Record<string, unknown>): Promise<number> {
    const { dialect } = this.database;
    let rewritten = 0;
    for (let start = 0; start < recordIds.length; start += 500) {
      const rows = await trx
        .selectFrom('idempotency_keys')
        .select(['scope', 'key', 'body'])
        .where('record_id', 'in', recordIds.slice(start, start + 500))
        .where('resource', '=', resource)
        .where('state', '=', 'done')
        .execute();
      for (const row of rows) {
        const body = this.unseal(dialect.fromDb('object', row.body));
        if (body === null || typeof body !== 'object' || Array.isArray(body)) continue;
        const sealed = this.seal(replace(body as Record<string, unknown>));
        await trx
          .updateTable('idempotency_keys')
          .set({ body: dialect.toDb('object', sealed) })
          .where('scope', '=', row.scope)
          .where('key', '=', row.key)
          .execute();
        rewritten += 1;
      }
    }
    return rewritten;
  }

  private seal(body: unknown): { readonly sealed: string } {
    return { sealed: this.dataKey.encrypt(JSON.stringify(body ?? null)) };
  }

  /** A stored body; one stored before bodies were sealed is replayed as it is. */
  private unseal(stored: unknown): unknown {
    const sealed = (stored as { sealed?: unknown } | null)?.sealed;
    return typeof sealed === 'string' && Object.keys(stored as object).length === 1 ? JSON.parse(this.dataKey.decrypt(sealed)) : stored;
  }

  private running(scope: string, key: string): Claim {
    const { db, dialect } = this.database;
    return {
      kind: 'run',
      committing: async (trx, record) => {
        await trx
          .updateTable('idempotency_keys')
          .set({ state: 'committed', expires_at: this.clock.now() + replayWindowMs, resource: record?.resource ?? null, record_id: record?.recordId ?? null })
          .where('scope', '=', scope)
          .where('key', '=', key)
          .where('state', '=', 'running')
          .execute();
      },
      complete: async (answer, record) => {
        const done = this.clock.now();
        try {
          await db
            .updateTable('idempotency_keys')
            .set({
              state: 'done',
              status: answer.status,
              headers: dialect.toDb('object', answer.headers),
              body: dialect.toDb('object', this.seal(answer.body)),
              expires_at: done + replayWindowMs,
              resource: record?.resource ?? null,
              record_id: record?.recordId ?? null,
            })
            .where('scope', '=', scope)
            .where('key', '=', key)
            .execute();
        } catch (error) {
          // The change committed but its answer could not be stored: keep the key reserved
          // for the whole window (repeats get 409), so a retry can never repeat the change.
          await db
            .updateTable('idempotency_keys')
            .set({ expires_at: done + replayWindowMs })
            .where('scope', '=', scope)
            .where('key', '=', key)
            .execute()
            .catch(() => undefined);
          throw error;
        }
      },
      release: async () => {
        await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('state', '=', 'running').execute();
      },
    };
  }
}

/** The 409 of a key another request holds (or held a moment ago): `Retry-After` tells a client when to repeat. */
function keyInUse(detail: string): ApiError {
  return new ApiError('idempotency_key_in_use', detail, { headers: { 'retry-after': '1' } });
}

/** Removes answers past their replay window (run by the retention job). */
export async function purgeExpiredIdempotencyKeys(database: Database, now: number): Promise<number> {
  const result = await database.db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
