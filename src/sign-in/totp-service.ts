import { Secret } from 'otpauth';
import type { TOTP } from 'otpauth';
import type { ExpressionBuilder } from 'kysely';
import type { Database, Db, Tables } from '../db/dialect.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { withRowLock } from '../db/row-lock.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError, notFound } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { DataKey } from '../security/data-key.js';
import type { UserDirectory, UserState } from '../security/user-directory.js';
import type { Clock } from '../core/clock.js';
import type { RequestContext } from '../core/request-context.js';
import { auditInUnit, userEvent } from '../security/security-events.js';
import type { SecurityEvents, UserEventName } from '../security/security-events.js';
import { challengeRefusal, invalidGrant, otpPolicy, Refusal, refusable, takesTries } from './otp-service.js';
import type { RefusalReason } from './otp-service.js';
import type { UserTokenResponse, UserTokens } from './user-tokens.js';
import { matchingStep, recoveryCode, recoveryCodeCount, totpGenerator } from './totp-codes.js';
import { lockedUntilAfterTry, totpLocked, totpLockMs, totpLockPolicy } from './totp-lock.js';
import type { Try } from './totp-lock.js';

const users = getResource('users');

type Outcome = 'accepted' | 'wrong_code' | 'replayed';

/** A refused code at activate, step-up or disable: a wrong code (any shape) or a replay, answered alike as 400 `invalid_grant`. */
const wrongTotpCode = 'The code is not the current code of the authenticator, or was used already';

export interface Enrollment {
  readonly secret: string;
  readonly otpauth_uri: string;
  /** Single-use codes for when the authenticator is lost; shown only here, valid once TOTP is on. */
  readonly recovery_codes: readonly string[];
}

/** The mfa challenge of `tokenHash` while it takes tries: unused, under the most tries, not expired at `now` (as {@link takesTries} reads a row). */
function liveMfaChallenge(eb: ExpressionBuilder<Tables, 'mfa_challenges'>, tokenHash: string, now: number) {
  return eb.and([eb('token_hash', '=', tokenHash), eb('used_at', 'is', null), eb('attempts', '<', otpPolicy.maxAttempts), eb('expires_at', '>', now)]);
}

/**
 * TOTP second factor (RFC 6238: SHA-1, 6 digits, 30 s, ±1 step) with the otpauth package.
 * Secrets are stored encrypted under the data key. An accepted code's time step is kept,
 * and a code is accepted only for a later step — a compare-and-set in the database, so a
 * replayed code is refused on every instance. Recovery codes are stored as HMACs and work
 * once each.
 */
export class TotpService {
  constructor(
    private readonly deps: {
      readonly database: Database;
      readonly clock: Clock;
      readonly dataKey: DataKey;
      readonly users: UserDirectory;
      readonly tokens: UserTokens;
      readonly events?: SecurityEvents;
    },
  ) {}

  /** A new secret for the signed-in user (replacing one not yet activated), audited in the same transaction. */
  async enroll(context: RequestContext): Promise<Enrollment> {
    const user = await this.user(context);
    const secret = new Secret({ size: 20 });
    const totp = this.totp(secret, user);
    const codes = Array.from({ length: recoveryCodeCount }, recoveryCode);
    await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
      const existing = await unit.trx.selectFrom('user_totp').select('enabled').where('user_id', '=', user.userId).executeTakeFirst();
      if (existing?.enabled === 1) throw new ApiError('conflict', 'TOTP is already on; turn it off first (POST /v1/auth/totp/disable with a current code)');
      const row = {
        user_id: user.userId,
        secret: this.deps.dataKey.encrypt(secret.base32),
        enabled: 0,
        last_step: -1,
        recovery_codes: JSON.stringify(codes.map((code) => this.deps.dataKey.mac('recovery', user.userId, code))),
        created_at: unit.now,
      };
      await unit.trx
        .insertInto('user_totp')
        .values(row)
        .onConflict((conflict) => conflict.column('user_id').doUpdateSet(row).where('user_totp.enabled', '=', 0))
        .execute();
      await this.audit(unit, 'totp_enrolled', context, user, { recovery_codes: codes.length });
    });
    return { secret: secret.base32, otpauth_uri: totp.toString(), recovery_codes: codes };
  }

  /** Turns TOTP on with a first valid code: the step claimed, the flag and the event in one transaction. */
  async activate(context: RequestContext, body: TotpCodeInput): Promise<void> {
    const user = await this.user(context);
    const { code } = body;
    const pending = await this.deps.database.db.selectFrom('user_totp').select(['enabled', 'locked_until']).where('user_id', '=', user.userId).executeTakeFirst();
    if (!pending || pending.enabled === 1) throw new ApiError('conflict', 'Nothing to activate: enrol first (POST /v1/auth/totp/enroll)');
    await this.lockGate(context, user, 'activate', pending.locked_until);
    const outcome = await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
      const row = await unit.trx.selectFrom('user_totp').selectAll().where('user_id', '=', user.userId).executeTakeFirst();
      if (!row || row.enabled === 1) throw new ApiError('conflict', 'Nothing to activate: enrol first (POST /v1/auth/totp/enroll)');
      const accepted = await this.accept(unit, row, user, code, { enabling: true });
      if (accepted !== 'accepted') return accepted;
      await this.setFlag(unit, user, true);
      await this.audit(unit, 'totp_activated', context, user);
      return accepted;
    });
    if (outcome !== 'accepted') throw await this.refuseCode(context, user, 'activate', outcome);
  }

  /**
   * The second step of a sign-in: the `mfa_token` of `/v1/auth/otp/verify` and a TOTP (or
   * recovery) code. The code is checked first; a refusal then takes its try of the
   * mfa_token (5 at most) and, for a TOTP code, a try of the user's TOTP lock-out, both in
   * one transaction; an accepted code's claim, the token's try that spends it and the
   * `recovery_code_used` and `sign_in` events are one transaction. A recovery code takes
   * no try of the lock-out and works while TOTP is locked (it is the way back in), and when
   * accepted it lifts the lock. Wrong recovery codes are bounded by the mfa_token's 5 tries
   * and by their 64 random bits.
   */
  async verify(context: RequestContext, body: TotpVerifyInput): Promise<UserTokenResponse> {
    const { mfa_token: token, code } = body;
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    const tokenHash = this.deps.dataKey.mac('mfa', token);
    const deadToken = () => invalidGrant('The mfa_token is wrong, expired or used up; sign in again');
    const challenge = await db.selectFrom('mfa_challenges').select(['user_id', 'attempts', 'used_at', 'expires_at']).where('token_hash', '=', tokenHash).executeTakeFirst();
    if (!challenge || !takesTries(challenge, now)) {
      await this.refusedChallenge(context, tokenHash, now);
      throw deadToken();
    }
    const user = await this.deps.users.get(challenge.user_id);
    const subject = { userId: challenge.user_id, tenantId: user?.tenantId ?? null };
    /** A refusal's try of the mfa_token, on `executor`: the count it reached, or undefined if the token died meanwhile. */
    const mfaTry = async (executor: Db): Promise<number | undefined> => {
      const tried = await executor
        .updateTable('mfa_challenges')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where((eb) => liveMfaChallenge(eb, tokenHash, now))
        .returning('attempts')
        .executeTakeFirst();
      return tried ? Number(tried.attempts) : undefined;
    };
    const refusalEvents = async (reason: RefusalReason, attempts: number, lockTry?: Try) => {
      await this.events('sign_in_failed', context, subject, { step: 'totp', reason, attempts });
      if (attempts >= otpPolicy.maxAttempts) await this.events('sign_in_locked', context, subject, { step: 'totp', attempts });
      if (user && lockTry) await this.lockEngaged(context, user, 'verify', lockTry);
    };
    /** A refusal that takes no try of the lock-out: its try of the mfa_token and its events; false if the token died meanwhile. */
    const refused = async (reason: RefusalReason): Promise<boolean> => {
      const attempts = await mfaTry(db);
      if (attempts === undefined) {
        await this.refusedChallenge(context, tokenHash, now);
        return false;
      }
      await refusalEvents(reason, attempts);
      return true;
    };
    /**
     * A refused code: its try of the lock-out (none for a recovery code) and of the
     * mfa_token in one transaction, in the order an accepted code takes them (the TOTP row,
     * then the challenge), so both count or, if the token died meanwhile, neither. 400, or
     * 429 if refusals racing it locked TOTP first.
     */
    const refuseCode = async (reason: RefusalReason, recovery: boolean): Promise<ApiError> => {
      const decided = await refusable(() =>
        db.transaction().execute(async (trx) => {
          const lockTry = recovery || !user ? undefined : await this.countTry(user.userId, now, trx);
          const attempts = await mfaTry(trx);
          if (attempts === undefined) throw new Refusal('used');
          return { lockTry, attempts };
        }),
      );
      if (decided instanceof Refusal) {
        await this.refusedChallenge(context, tokenHash, now);
        return deadToken();
      }
      const { lockTry, attempts } = decided;
      if (lockTry && 'lockedUntil' in lockTry) {
        await refusalEvents('totp_locked', attempts);
        return totpLocked(lockTry.lockedUntil, now);
      }
      await refusalEvents(reason, attempts, lockTry);
      return invalidGrant();
    };
    const row = await db.selectFrom('user_totp').selectAll().where('user_id', '=', challenge.user_id).executeTakeFirst();
    if (!user?.active || !row || row.enabled !== 1) throw (await refused('user_inactive')) ? invalidGrant() : deadToken();
    const recovery = code.includes('-');
    if (!recovery && Number(row.locked_until) > now) throw (await refused('totp_locked')) ? totpLocked(Number(row.locked_until), now) : deadToken();
    // The code is checked first (no write); only a matching one costs a signature and a transaction.
    const step = recovery ? null : matchingStep(this.totp(Secret.fromBase32(this.deps.dataKey.decrypt(row.secret)), user), code, now);
    const recoveryHashes = JSON.parse(row.recovery_codes) as string[];
    if (recovery ? !recoveryHashes.some((hash) => this.deps.dataKey.verifyMac(hash, 'recovery', user.userId, code)) : step === null) throw await refuseCode('wrong_code', recovery);
    const issued = await this.deps.tokens.issue(user, ['otp', 'totp']);
    const outcome = await refusable(() =>
      runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
        const claimed = recovery ? await this.useRecoveryCode(unit, user, code) : await this.claimStep(unit, user, step ?? 0, { enabling: false });
        if (claimed !== 'accepted') throw new Refusal(claimed);
        const spent = await unit.trx
          .updateTable('mfa_challenges')
          .set((eb) => ({ used_at: unit.now, attempts: eb('attempts', '+', 1) }))
          .where((eb) => liveMfaChallenge(eb, tokenHash, now))
          .executeTakeFirst();
        // The token died meanwhile (used, or out of tries): this request comes after that, like any other.
        if (Number(spent.numUpdatedRows) !== 1) throw new Refusal('used');
        if (recovery) await this.audit(unit, 'recovery_code_used', context, user, { remaining: recoveryHashes.length - 1 });
        await this.audit(unit, 'sign_in', context, user, { amr: ['otp', 'totp'], second_factor: recovery ? 'recovery_code' : 'totp', role: user.role });
      }),
    );
    if (outcome instanceof Refusal) {
      if (outcome.reason === 'used') {
        await this.refusedChallenge(context, tokenHash, now);
        throw deadToken();
      }
      throw await refuseCode(outcome.reason, recovery);
    }
    return issued;
  }

  /**
   * Step-up (RFC 9470) within a session: the signed-in user proves the second factor with a
   * TOTP code and gets a token carrying `totp` in `amr` — e.g. right after enrolling. The
   * step's claim and the `sign_in` event are one transaction.
   */
  async stepUp(context: RequestContext, body: TotpCodeInput): Promise<UserTokenResponse> {
    const user = await this.user(context);
    const { code } = body;
    const row = await this.deps.database.db.selectFrom('user_totp').selectAll().where('user_id', '=', user.userId).executeTakeFirst();
    if (!row || row.enabled !== 1) throw new ApiError('conflict', 'TOTP is not on: enrol and activate it first');
    await this.lockGate(context, user, 'step_up', row.locked_until);
    const step = matchingStep(this.totp(Secret.fromBase32(this.deps.dataKey.decrypt(row.secret)), user), code, this.deps.clock.now());
    if (step === null) throw await this.refuseCode(context, user, 'step_up', 'wrong_code');
    const issued = await this.deps.tokens.issue(user, ['otp', 'totp']);
    const outcome = await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
      const claimed = await this.claimStep(unit, user, step, { enabling: false });
      if (claimed === 'accepted') await this.audit(unit, 'sign_in', context, user, { amr: ['otp', 'totp'], step: 'step_up', role: user.role });
      return claimed;
    });
    if (outcome !== 'accepted') throw await this.refuseCode(context, user, 'step_up', outcome);
    return issued;
  }

  /** Turns TOTP off; needs a current code, so a stolen one-factor session cannot. The removal, the flag and the event are one transaction. */
  async disable(context: RequestContext, body: TotpCodeInput): Promise<void> {
    const user = await this.user(context);
    const { code } = body;
    const active = await this.deps.database.db.selectFrom('user_totp').select(['enabled', 'locked_until']).where('user_id', '=', user.userId).executeTakeFirst();
    if (!active || active.enabled !== 1) throw new ApiError('conflict', 'TOTP is not on');
    await this.lockGate(context, user, 'disable', active.locked_until);
    const outcome = await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
      const row = await unit.trx.selectFrom('user_totp').selectAll().where('user_id', '=', user.userId).executeTakeFirst();
      if (!row || row.enabled !== 1) throw new ApiError('conflict', 'TOTP is not on');
      const accepted = await this.accept(unit, row, user, code, { enabling: false });
      if (accepted !== 'accepted') return accepted;
      await unit.trx.deleteFrom('user_totp').where('user_id', '=', user.userId).execute();
      await this.setFlag(unit, user, false);
      await this.audit(unit, 'totp_disabled', context, user);
      return accepted;
    });
    if (outcome !== 'accepted') throw await this.refuseCode(context, user, 'disable', outcome);
  }

  /**
   * An administrator's reset, for a user who lost the authenticator and the recovery codes:
   * removes the enrolment (active or pending) with its recovery codes and lock-out, turns
   * `totp_enabled` off and records `totp_reset`, in one transaction. The user's update
   * carries the grant ceiling's check (the caller holds the user's role). With nothing to
   * reset, nothing is written.
   */
  async reset(context: RequestContext, userId: string): Promise<void> {
    await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
      // The TOTP row first, then the user's: the order activate and disable take them in,
      // so a reset racing the user's own change waits for it instead of deadlocking.
      await withRowLock(unit.trx.selectFrom('user_totp').select('user_id').where('user_id', '=', userId), unit.dialect, 'update').execute();
      const user = await unit.find(users, userId, { lock: 'update' });
      if (!user) throw notFound(users.name);
      const removed = await unit.trx.deleteFrom('user_totp').where('user_id', '=', userId).returning('enabled').executeTakeFirst();
      const enabled = unit.dialect.fromDb('boolean', user.totp_enabled) === true;
      if (!removed && !enabled) return;
      await unit.update(users, user, String(user.etag), { totp_enabled: false }, { action: 'totp-reset' });
      await unit.invalidate('user', userId);
      // The caller (an administrator's client or user) is the actor; the entry is about the user.
      const enrolment = removed?.enabled === 1 ? 'active' : removed ? 'pending' : 'none';
      await unit.audit({
        category: 'security',
        action: 'totp_reset',
        resource: 'users',
        recordId: userId,
        tenantId: (user.tenant_id as string | null) ?? null,
        oldValues: null,
        newValues: { enrolment },
      });
    });
  }

  /** Checks a code and claims its time step (never an earlier or the same one again). */
  private async accept(unit: UnitOfWork, row: { secret: string }, user: UserState, code: string, options: { enabling: boolean }): Promise<Outcome> {
    const step = matchingStep(this.totp(Secret.fromBase32(this.deps.dataKey.decrypt(row.secret)), user), code, unit.now);
    return step === null ? 'wrong_code' : this.claimStep(unit, user, step, options);
  }

  /** Compare-and-set on the last used step: of two instances given the same code at once, one wins. */
  private async claimStep(unit: UnitOfWork, user: UserState, step: number, options: { enabling: boolean }): Promise<Outcome> {
    const claimed = await unit.trx
      .updateTable('user_totp')
      // An accepted code ends the run of refused ones: the lock-out count starts again.
      .set({ last_step: step, failed_tries: 0, locked_until: 0, ...(options.enabling ? { enabled: 1 } : {}) })
      .where('user_id', '=', user.userId)
      .where('last_step', '<', step)
      .where('enabled', '=', options.enabling ? 0 : 1)
      // A lock engaged since the code was checked (by refusals racing it) refuses it after all.
      .where('locked_until', '<=', unit.now)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1 ? 'accepted' : 'replayed';
  }

  private async useRecoveryCode(unit: UnitOfWork, user: UserState, code: string): Promise<Outcome> {
    // The list as it is now, locked: another sign-in spending another code of it meanwhile
    // is no reason to refuse this one, and this one is spent once.
    const current = await withRowLock(unit.trx.selectFrom('user_totp').select('recovery_codes').where('user_id', '=', user.userId), unit.dialect, 'update').executeTakeFirst();
    if (!current) return 'replayed';
    const hashes = JSON.parse(current.recovery_codes) as string[];
    const index = hashes.findIndex((hash) => this.deps.dataKey.verifyMac(hash, 'recovery', user.userId, code));
    if (index < 0) return 'replayed';
    const rest = JSON.stringify(hashes.filter((_, i) => i !== index));
    // Compare-and-set on the list (the lock makes it hold on PostgreSQL; SQLite writes one at a time).
    // A spent recovery code also lifts a TOTP lock-out and starts its count again.
    const used = await unit.trx
      .updateTable('user_totp')
      .set({ recovery_codes: rest, failed_tries: 0, locked_until: 0 })
      .where('user_id', '=', user.userId)
      .where('recovery_codes', '=', current.recovery_codes)
      .executeTakeFirst();
    return Number(used.numUpdatedRows) === 1 ? 'accepted' : 'replayed';
  }

  /**
   * While the user's TOTP is locked (`locked_until` as last read), records the refusal and
   * throws 429 `rate_limited` with `Retry-After`: the code is not checked.
   */
  private async lockGate(context: RequestContext, user: UserState, operation: 'activate' | 'step_up' | 'disable', lockedUntil: unknown): Promise<void> {
    const now = this.deps.clock.now();
    if (Number(lockedUntil) <= now) return;
    await this.record('totp_failed', context, user, { operation, reason: 'totp_locked' });
    throw totpLocked(Number(lockedUntil), now);
  }

  /**
   * A code refused at activate, step-up or disable (wrong, or its step claimed already):
   * its try of the lock-out is taken now, so the count and the lock it may earn are one
   * statement at the moment of the refusal; 400, or 429 if refusals racing it locked TOTP
   * first (the code then counts as refused unchecked).
   */
  private async refuseCode(context: RequestContext, user: UserState, operation: 'activate' | 'step_up' | 'disable', reason: Exclude<Outcome, 'accepted'>): Promise<ApiError> {
    const now = this.deps.clock.now();
    const tried = await this.countTry(user.userId, now);
    if ('lockedUntil' in tried) {
      await this.record('totp_failed', context, user, { operation, reason: 'totp_locked' });
      return totpLocked(tried.lockedUntil, now);
    }
    await this.record('totp_failed', context, user, { operation, reason });
    await this.lockEngaged(context, user, operation, tried);
    return invalidGrant(wrongTotpCode);
  }

  /**
   * One conditional statement: unless TOTP is locked, counts a refused try and, if it is
   * the 5th or a later one, starts the lock it earns. An accepted code's claim resets both,
   * and only while TOTP is not locked (see {@link claimStep}); so each code is decided by
   * one statement, and parallel tries on any instance are answered as if they had come one
   * by one: at most five refusals before the lock, and no lock engaged by refusals that
   * came after an accepted code.
   */
  private async countTry(userId: string, now: number, executor: Db = this.deps.database.db): Promise<Try> {
    const lockedUntil = lockedUntilAfterTry(now);
    const counted = await executor
      .updateTable('user_totp')
      .set((eb) => ({ failed_tries: eb('failed_tries', '+', 1), locked_until: lockedUntil }))
      .where('user_id', '=', userId)
      .where('locked_until', '<=', now)
      .returning('failed_tries')
      .executeTakeFirst();
    if (counted) return { failures: Number(counted.failed_tries) };
    const row = await executor.selectFrom('user_totp').select('locked_until').where('user_id', '=', userId).executeTakeFirst();
    // No row (removed meanwhile): nothing to lock; the caller's own check refuses the code.
    return row ? { lockedUntil: Number(row.locked_until) } : { failures: 0 };
  }

  /** Records `totp_locked` when a refused code was the 5th (or a later) in a row: TOTP is now locked. */
  private async lockEngaged(context: RequestContext, user: UserState, operation: 'activate' | 'verify' | 'step_up' | 'disable', tried: Try): Promise<void> {
    if (!('failures' in tried) || tried.failures < totpLockPolicy.freeTries) return;
    await this.record('totp_locked', context, user, { operation, failures: tried.failures, locked_for: totpLockMs(tried.failures) / 1000 });
  }

  private totp(secret: Secret, user: UserState): TOTP {
    return totpGenerator(secret, user.email ?? user.userId);
  }

  /** Audits an mfa_token refused before any try: unknown, used, expired or already dead. */
  private async refusedChallenge(context: RequestContext, tokenHash: string, now: number): Promise<void> {
    const row = await this.deps.database.db.selectFrom('mfa_challenges').select(['user_id', 'used_at', 'expires_at', 'attempts']).where('token_hash', '=', tokenHash).executeTakeFirst();
    const reason = challengeRefusal(row, now);
    const user = row ? await this.deps.users.get(row.user_id) : undefined;
    await this.events('sign_in_failed', context, { userId: row?.user_id ?? null, tenantId: user?.tenantId ?? null }, { step: 'totp', reason });
  }

  private record(name: UserEventName, context: RequestContext, user: UserState, details: Record<string, unknown> = {}): Promise<void> {
    return this.events(name, context, { userId: user.userId, tenantId: user.tenantId }, details);
  }

  private events(name: UserEventName, context: RequestContext, subject: { userId: string | null; tenantId: string | null }, details: Record<string, unknown>): Promise<void> {
    return this.deps.events?.record(userEvent(name, context, subject, details)) ?? Promise.resolve();
  }

  private async user(context: RequestContext): Promise<UserState> {
    const user = context.principal.actorType === 'user' ? await this.deps.users.get(context.principal.actorId) : undefined;
    if (!user?.active) throw new ApiError('unauthenticated', 'Sign in as a user first');
    return user;
  }

  /** `users.totp_enabled`, changed in the unit of work of the TOTP change: audited, with its outbox event. */
  private async setFlag(unit: UnitOfWork, user: UserState, enabled: boolean): Promise<void> {
    const row = await unit.asSystem().find(users, user.userId, { lock: 'update' });
    if (!row) throw new ApiError('not_found', 'The user no longer exists');
    await unit.update(users, row, String(row.etag), { totp_enabled: enabled }, { action: enabled ? 'totp-enable' : 'totp-disable' });
    await unit.invalidate('user', user.userId);
  }

  /** The security event of a state change, written in that change's transaction (fails closed). */
  private audit(unit: UnitOfWork, name: UserEventName, context: RequestContext, user: UserState, details: Record<string, unknown> = {}): Promise<string> {
    return auditInUnit(unit, userEvent(name, context, { userId: user.userId, tenantId: user.tenantId }, details));
  }
}

/** The body of `activate`, `step-up` and `disable`, as its schema (`src/actions/sign-in-actions.ts`) admits it: the code as typed (any shape). */
export interface TotpCodeInput {
  readonly code: string;
}

/** The body of `POST /v1/auth/totp/verify`, as its schema admits it: the mfa_token and a TOTP or recovery code. */
export interface TotpVerifyInput {
  readonly mfa_token: string;
  readonly code: string;
}
