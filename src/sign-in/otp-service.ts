import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { ExpressionBuilder } from 'kysely';
import type { Database, Db, Tables } from '../db/dialect.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError, validationError } from '../http/errors.js';
import type { Metrics } from '../observability/metrics.js';
import type { DataKey } from '../security/data-key.js';
import type { TenantDirectory } from '../security/tenant-directory.js';
import type { UserDirectory } from '../security/user-directory.js';
import type { Clock } from '../core/clock.js';
import type { RequestContext } from '../core/request-context.js';
import { systemNodeId } from '../core/principal.js';
import { auditInUnit, userEvent } from '../security/security-events.js';
import type { SecurityEvents, UserEventName } from '../security/security-events.js';
import type { Channel, MessageSender } from './messages.js';
import { signInMessage } from './messages.js';
import type { UserTokenResponse, UserTokens } from './user-tokens.js';

/** How long a code is valid, how often it may be tried, and how soon a new one may be asked for. */
export const otpPolicy = { lifetimeMs: 600_000, maxAttempts: 5, resendAfterMs: 60_000, mfaLifetimeMs: 300_000 } as const;

const email = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const phone = /^\+[1-9][0-9]{6,14}$/;

/** The refusal of a sign-in step (400 `invalid_grant`): one answer for wrong, expired, used and unknown codes; `privateReason` goes to logs and security events only. */
export function invalidGrant(detail = 'The code is wrong, expired, already used or unknown; start a new sign-in', privateReason?: string): ApiError {
  return new ApiError('invalid_grant', detail, { extensions: { error: 'invalid_grant' }, ...(privateReason ? { privateReason } : {}) });
}

export interface MfaRequired {
  readonly mfa_required: true;
  readonly mfa_token: string;
}

export interface OtpDeps {
  readonly database: Database;
  readonly clock: Clock;
  readonly dataKey: DataKey;
  readonly users: UserDirectory;
  /** Tells a tenant that exists from the caller's text, so the trail never names a tenant that does not. */
  readonly tenants: Pick<TenantDirectory, 'resolve'>;
  readonly sender: MessageSender;
  readonly tokens: UserTokens;
  readonly limits: Readonly<Record<Channel, number>>;
  readonly log: FastifyBaseLogger;
  readonly metrics?: Metrics;
  /** The audit trail of sign-ins, refusals and lockouts (`security` category). */
  readonly events?: SecurityEvents;
}

/** Why a code was refused, for the audit trail only (clients always see `invalid_grant`). */
export type RefusalReason = 'wrong_code' | 'expired' | 'used' | 'unknown' | 'locked' | 'user_inactive' | 'replayed' | 'totp_locked';

/** Why a challenge (one-time code or mfa_token) took no try: not found, used, dead or expired. */
export function challengeRefusal(row: { readonly used_at: unknown; readonly attempts: unknown; readonly expires_at: unknown } | undefined, now: number): RefusalReason {
  if (!row) return 'unknown';
  if (row.used_at !== null) return 'used';
  if (Number(row.attempts) >= otpPolicy.maxAttempts) return 'locked';
  return Number(row.expires_at) <= now ? 'expired' : 'unknown';
}

/** A challenge row as read: whether it still takes tries at `now` (what {@link liveChallenge} asks in SQL). */
export function takesTries(row: { readonly used_at: unknown; readonly attempts: unknown; readonly expires_at: unknown } | undefined, now: number): boolean {
  return row !== undefined && row.used_at === null && Number(row.attempts) < otpPolicy.maxAttempts && Number(row.expires_at) > now;
}

/** Challenge `id` while it takes tries: unused, under the most tries, not expired at `now`. */
function liveChallenge(eb: ExpressionBuilder<Tables, 'otp_challenges'>, id: string, now: number) {
  return eb.and([eb('_id', '=', id), eb('used_at', 'is', null), eb('attempts', '<', otpPolicy.maxAttempts), eb('expires_at', '>', now)]);
}

/**
 * A sign-in step refused inside its transaction: thrown to roll back what the step had
 * already claimed, then recorded through group commit (a refusal changes nothing).
 */
export class Refusal extends Error {
  constructor(readonly reason: RefusalReason) {
    super(`sign-in step refused: ${reason}`);
  }
}

/** What a start's transaction did: issued a challenge, or refused for the resend cooldown or the daily cap. */
type StartOutcome = { readonly kind: 'issued'; readonly id: string } | { readonly kind: 'cooldown'; readonly lastSent: number } | { readonly kind: 'daily_limit'; readonly error: ApiError };

/** Runs a unit of work; a {@link Refusal} thrown inside (after its rollback) is returned instead of thrown. */
export async function refusable<T>(work: () => Promise<T>): Promise<T | Refusal> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
}

/**
 * Sign-in by one-time password. `start` answers the same whether or not the destination
 * belongs to a user, and in the same time: the message goes out after the answer. Codes
 * come from the CSPRNG, are stored as an HMAC under the data key, compared in constant time,
 * die after 5 wrong tries or 10 minutes, and work once. The daily caps and the resend
 * cooldown live in the database, so they hold across instances.
 */
export class OtpService {
  constructor(private readonly deps: OtpDeps) {}

  async start(context: RequestContext, body: OtpStartInput): Promise<{ challenge_id: string; expires_in: number }> {
    const { tenantId, channel, destination } = parseStart(body);
    if (channel === 'sms' && !this.deps.sender.smsAvailable) throw validationError([{ field: 'channel', message: 'SMS sign-in is not configured (SMS_WEBHOOK_URL)' }]);
    const now = this.deps.clock.now();
    // An unknown tenant's id is the caller's text: the start is recorded under the system node
    // (`null` in the trail), and answered like a destination that belongs to no user.
    const trailTenant = (await this.deps.tenants.resolve(tenantId))?.nodeId ?? null;
    const user = await this.deps.users.findByDestination(tenantId, channel, destination);
    const active = user?.active === true ? user : undefined;
    // The destination itself stays out of the trail (personal data); the user, when known, is named.
    const refused = (reason: 'cooldown' | 'daily_limit') => this.record('otp_refused', context, active?.userId ?? null, trailTenant, { channel, reason });
    const destinationKey = this.deps.dataKey.mac('otp-destination', tenantId, channel, destination);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    // The challenge and its `otp_issued` event commit together; a refusal changes nothing.
    const issued = await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit): Promise<StartOutcome> => {
      const lastSent = await this.claimResend(unit.trx, destinationKey, unit.now);
      if (lastSent !== undefined) return { kind: 'cooldown', lastSent };
      const capped = await this.countMessage(unit.trx, channel, unit.now);
      if (capped) {
        // No code went out, so no resend cooldown starts: a repeat meets the cap again.
        await unit.trx.deleteFrom('otp_resend_locks').where('destination_key', '=', destinationKey).execute();
        return { kind: 'daily_limit', error: capped };
      }
      const id = randomUUID();
      await unit.trx
        .insertInto('otp_challenges')
        .values({
          _id: id,
          tenant_id: trailTenant ?? systemNodeId,
          channel,
          destination_key: destinationKey,
          user_id: active?.userId ?? null,
          code_hash: this.deps.dataKey.mac('otp-code', id, code),
          attempts: 0,
          created_at: unit.now,
          expires_at: unit.now + otpPolicy.lifetimeMs,
          used_at: null,
        })
        .execute();
      await this.audit(unit, 'otp_issued', context, active?.userId ?? null, trailTenant, { channel, challenge_id: id });
      return { kind: 'issued', id };
    });
    if (issued.kind === 'daily_limit') {
      await refused('daily_limit');
      throw issued.error;
    }
    if (issued.kind === 'cooldown') {
      await refused('cooldown');
      const wait = Math.max(1, Math.ceil((issued.lastSent + otpPolicy.resendAfterMs - now) / 1000));
      throw new ApiError('rate_limited', `A code was sent to this destination less than a minute ago; retry in ${wait} s`, { headers: { 'retry-after': String(wait) } });
    }
    const { id } = issued;
    if (active) {
      const message = signInMessage(active.locale, code, otpPolicy.lifetimeMs / 60_000);
      // After the answer: a known and an unknown destination take the same time to answer.
      setImmediate(() => {
        this.deps.sender.send(channel, destination, message).then(
          () => this.deps.metrics?.otpMessage(channel, 'sent'),
          (error: unknown) => {
            this.deps.metrics?.otpMessage(channel, 'failed');
            this.deps.log.error({ err: error, channel }, 'sign-in message not delivered');
          },
        );
      });
    } else {
      this.deps.metrics?.otpMessage(channel, 'no_user');
    }
    return { challenge_id: id, expires_in: otpPolicy.lifetimeMs / 1000 };
  }

  /**
   * Claims the destination's resend slot with one conditional upsert: of two requests in
   * the same instant, on any instance, one wins. Returns `undefined` when claimed, else
   * when the last code was sent.
   */
  private async claimResend(db: Db, destinationKey: string, now: number): Promise<number | undefined> {
    // Slots past their minute are of no use; dropping them keeps no trace of old destinations.
    await db
      .deleteFrom('otp_resend_locks')
      .where('sent_at', '<=', now - otpPolicy.resendAfterMs)
      .execute();
    const claimed = await db
      .insertInto('otp_resend_locks')
      .values({ destination_key: destinationKey, sent_at: now })
      .onConflict((conflict) =>
        conflict
          .column('destination_key')
          .doUpdateSet({ sent_at: now })
          .where('otp_resend_locks.sent_at', '<=', now - otpPolicy.resendAfterMs),
      )
      .returning('destination_key')
      .executeTakeFirst();
    if (claimed) return undefined;
    const held = await db.selectFrom('otp_resend_locks').select('sent_at').where('destination_key', '=', destinationKey).executeTakeFirst();
    return held ? Number(held.sent_at) : now;
  }

  /** A token, or — when the user has TOTP — a short-lived token for the second factor. */
  async verify(context: RequestContext, body: OtpVerifyInput): Promise<UserTokenResponse | MfaRequired> {
    const { challenge_id: challengeId, code } = body;
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    const row = await db.selectFrom('otp_challenges').select(['code_hash', 'user_id', 'tenant_id', 'channel', 'used_at', 'attempts', 'expires_at']).where('_id', '=', challengeId).executeTakeFirst();
    if (!row || !takesTries(row, now)) {
      await this.refusedChallenge(context, challengeId, now);
      throw invalidGrant();
    }
    // The code is compared first; then one conditional statement takes the try. A try that
    // signs nobody in is counted; a right code's try spends the challenge in its transaction.
    // Both hold only while the challenge is unused, alive and under five tries, so each
    // verify is one atomic step whatever runs in parallel on however many instances: five
    // wrong codes and the challenge is dead, exactly one request sees the count reach the
    // limit, and a challenge that signed someone in was never locked.
    const subject = { userId: row.user_id, tenantId: trailTenantOf(row.tenant_id) };
    const matches = row.user_id !== null && this.deps.dataKey.verifyMac(row.code_hash, 'otp-code', challengeId, code);
    const user = matches && row.user_id !== null ? await this.deps.users.get(row.user_id) : undefined;
    const refuse = async (reason: RefusalReason) => {
      await this.record('sign_in_failed', context, subject.userId, subject.tenantId, { step: 'otp', channel: row.channel, reason, challenge_id: challengeId });
      return invalidGrant();
    };
    if (!user?.active) {
      const tried = await db
        .updateTable('otp_challenges')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where((eb) => liveChallenge(eb, challengeId, now))
        .returning(['attempts'])
        .executeTakeFirst();
      if (!tried) {
        await this.refusedChallenge(context, challengeId, now);
        throw invalidGrant();
      }
      // A disabled user's right code costs a try too, so it cannot be told from a wrong one by the count.
      if (matches) throw await refuse('user_inactive');
      const attempts = Number(tried.attempts);
      await this.record('sign_in_failed', context, subject.userId, subject.tenantId, { step: 'otp', channel: row.channel, reason: 'wrong_code', attempts, challenge_id: challengeId });
      if (attempts >= otpPolicy.maxAttempts) await this.record('sign_in_locked', context, subject.userId, subject.tenantId, { step: 'otp', channel: row.channel, attempts, challenge_id: challengeId });
      throw invalidGrant();
    }
    const totp = await db.selectFrom('user_totp').select('enabled').where('user_id', '=', user.userId).executeTakeFirst();
    const spend = async (unit: UnitOfWork) => {
      const used = await unit.trx
        .updateTable('otp_challenges')
        .set((eb) => ({ used_at: unit.now, attempts: eb('attempts', '+', 1) }))
        .where((eb) => liveChallenge(eb, challengeId, now))
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) === 1) return;
      const spent = await unit.trx.selectFrom('otp_challenges').select(['used_at', 'attempts', 'expires_at']).where('_id', '=', challengeId).executeTakeFirst();
      throw new Refusal(challengeRefusal(spent, now));
    };
    // The spent challenge and what it led to (an mfa challenge, or a token) commit with their event.
    if (totp?.enabled === 1) {
      const token = randomBytes(32).toString('base64url');
      const outcome = await refusable(() =>
        runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
          await spend(unit);
          await unit.trx
            .insertInto('mfa_challenges')
            .values({ token_hash: this.deps.dataKey.mac('mfa', token), user_id: user.userId, attempts: 0, expires_at: unit.now + otpPolicy.mfaLifetimeMs, used_at: null })
            .execute();
          await this.audit(unit, 'mfa_challenge', context, user.userId, user.tenantId, { channel: row.channel });
        }),
      );
      if (outcome instanceof Refusal) throw await refuse(outcome.reason);
      return { mfa_required: true, mfa_token: token };
    }
    const issued = await this.deps.tokens.issue(user, ['otp']);
    const outcome = await refusable(() =>
      runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
        await spend(unit);
        await this.audit(unit, 'sign_in', context, user.userId, user.tenantId, { amr: ['otp'], channel: row.channel, role: user.role });
      }),
    );
    if (outcome instanceof Refusal) throw await refuse(outcome.reason);
    return issued;
  }

  /** Audits a refused code whose challenge took no try: unknown, used, expired or already dead. */
  private async refusedChallenge(context: RequestContext, challengeId: string, now: number): Promise<void> {
    const row = await this.deps.database.db
      .selectFrom('otp_challenges')
      .select(['user_id', 'tenant_id', 'channel', 'used_at', 'expires_at', 'attempts'])
      .where('_id', '=', challengeId)
      .executeTakeFirst();
    const reason = challengeRefusal(row, now);
    // An unknown id is the caller's text: it is not repeated in the trail.
    await this.record('sign_in_failed', context, row?.user_id ?? null, row ? trailTenantOf(row.tenant_id) : null, {
      step: 'otp',
      reason,
      ...(row ? { channel: row.channel, challenge_id: challengeId } : {}),
    });
  }

  /** The security event of a state change, in that change's transaction (fails closed). */
  private audit(unit: UnitOfWork, name: UserEventName, context: RequestContext, userId: string | null, tenantId: string | null, details: Record<string, unknown>): Promise<string> {
    return auditInUnit(unit, userEvent(name, context, { userId, tenantId }, details));
  }

  private record(name: UserEventName, context: RequestContext, userId: string | null, tenantId: string | null, details: Record<string, unknown>): Promise<void> {
    return this.deps.events?.record(userEvent(name, context, { userId, tenantId }, details)) ?? Promise.resolve();
  }

  /** Counts a message against today's deployment-wide cap; past it, the 429 to answer (nothing is sent). */
  private async countMessage(db: Db, channel: Channel, now: number): Promise<ApiError | undefined> {
    const limit = this.deps.limits[channel];
    const day = new Date(now).toISOString().slice(0, 10);
    // One statement counts and checks: concurrent starts on any instance cannot pass the cap together.
    const counted =
      limit > 0 &&
      Number(
        (
          await db
            .insertInto('otp_daily_counts')
            .values({ day, channel, sent: 1 })
            .onConflict((conflict) =>
              conflict
                .columns(['day', 'channel'])
                .doUpdateSet((eb) => ({ sent: eb('otp_daily_counts.sent', '+', 1) }))
                .where('otp_daily_counts.sent', '<', limit),
            )
            .executeTakeFirst()
        ).numInsertedOrUpdatedRows ?? 0,
      ) === 1;
    if (!counted) {
      this.deps.metrics?.otpMessage(channel, 'refused_daily_limit');
      this.deps.metrics?.otpDailyCapUsed(channel, 1);
      return new ApiError('daily_limit_reached', `Today's limit of ${channel === 'sms' ? 'SMS' : 'e-mail'} sign-in messages is reached; try again tomorrow (UTC) or use another channel`, {
        headers: { 'retry-after': String(Math.ceil((Date.parse(`${day}T00:00:00Z`) + 86_400_000 - now) / 1000)) },
      });
    }
    const row = await db.selectFrom('otp_daily_counts').select('sent').where('day', '=', day).where('channel', '=', channel).executeTakeFirst();
    this.deps.metrics?.otpDailyCapUsed(channel, Number(row?.sent ?? 0) / limit);
    return undefined;
  }
}

/** The body of `POST /v1/auth/otp/start`, as its schema (`src/actions/sign-in-actions.ts`) admits it. */
export interface OtpStartInput {
  readonly tenant_id: string;
  readonly channel: Channel;
  readonly destination: string;
}

/** The body of `POST /v1/auth/otp/verify`, as its schema admits it. */
export interface OtpVerifyInput {
  readonly challenge_id: string;
  readonly code: string;
}

/** A challenge's stored tenant as the trail names it: the system node (and an unknown tenant, stored as it) is `null`. */
function trailTenantOf(stored: string): string | null {
  return stored === systemNodeId ? null : stored;
}

/** What the start body's schema cannot say: the destination's form depends on the channel. */
function parseStart(body: OtpStartInput): { tenantId: string; channel: Channel; destination: string } {
  const { tenant_id: tenantId, channel } = body;
  const text = body.destination.trim();
  if (channel === 'email' && !email.test(text)) throw validationError([{ field: 'destination', message: 'must be an e-mail address' }]);
  if (channel === 'sms' && !phone.test(text)) throw validationError([{ field: 'destination', message: 'must be a phone number in E.164 form (+4915…)' }]);
  return { tenantId, channel, destination: channel === 'email' ? text.toLowerCase() : text };
}
