import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Database } from '../db/dialect.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { ApiError, validationError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { DataKey } from '../security/data-key.js';
import type { UserDirectory, UserState } from '../security/user-directory.js';
import type { Clock } from '../services/clock.js';
import type { RequestContext } from '../services/request-context.js';
import { invalidGrant, objectBody, otpPolicy } from './otp-service.js';
import type { UserTokenResponse, UserTokens } from './user-tokens.js';

const users = getResource('users');
const period = 30;
const recoveryCodeCount = 10;

export interface Enrollment {
  readonly secret: string;
  readonly otpauth_uri: string;
  /** Single-use codes for when the authenticator is lost; shown only here, valid once TOTP is on. */
  readonly recovery_codes: readonly string[];
}

function recoveryCode(): string {
  const text = randomBytes(8).toString('hex');
  return `${text.slice(0, 8)}-${text.slice(8)}`.slice(0, 17);
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
    private readonly deps: { readonly database: Database; readonly clock: Clock; readonly dataKey: DataKey; readonly users: UserDirectory; readonly tokens: UserTokens },
  ) {}

  /** A new secret for the signed-in user (replacing one not yet activated). */
  async enroll(context: RequestContext): Promise<Enrollment> {
    const user = await this.user(context);
    const { db } = this.deps.database;
    const existing = await db.selectFrom('user_totp').select('enabled').where('user_id', '=', user.userId).executeTakeFirst();
    if (existing?.enabled === 1) throw new ApiError('conflict', 'TOTP is already on; turn it off first (POST /v1/auth/totp/disable with a current code)');
    const secret = new Secret({ size: 20 });
    const totp = this.totp(secret, user);
    const codes = Array.from({ length: recoveryCodeCount }, recoveryCode);
    const row = {
      user_id: user.userId,
      secret: this.deps.dataKey.encrypt(secret.base32),
      enabled: 0,
      last_step: -1,
      recovery_codes: JSON.stringify(codes.map((code) => this.deps.dataKey.mac('recovery', user.userId, code))),
      created_at: this.deps.clock.now(),
    };
    await db.insertInto('user_totp').values(row).onConflict((conflict) => conflict.column('user_id').doUpdateSet(row).where('user_totp.enabled', '=', 0)).execute();
    return { secret: secret.base32, otpauth_uri: totp.toString(), recovery_codes: codes };
  }

  /** Turns TOTP on with a first valid code. */
  async activate(context: RequestContext, body: unknown): Promise<void> {
    const user = await this.user(context);
    const code = parseCode(body, 'code');
    const row = await this.deps.database.db.selectFrom('user_totp').selectAll().where('user_id', '=', user.userId).executeTakeFirst();
    if (!row || row.enabled === 1) throw new ApiError('conflict', 'Nothing to activate: enrol first (POST /v1/auth/totp/enroll)');
    if (!(await this.accept(row, user, code, { enabling: true }))) throw validationError([{ field: 'code', message: 'is not the current code of the authenticator' }]);
    await this.setFlag(context, user, true);
  }

  /** The second step of a sign-in: the `mfa_token` of `/v1/auth/otp/verify` and a TOTP (or recovery) code. */
  async verify(body: unknown): Promise<UserTokenResponse> {
    const input = objectBody(body);
    const token = input.mfa_token;
    const code = typeof input.code === 'string' ? input.code.trim() : '';
    if (typeof token !== 'string' || token.length > 100 || !/^([0-9]{6}|[0-9a-f]{8}-[0-9a-f]{8})$/.test(code)) {
      throw validationError([{ field: 'code', message: 'send mfa_token and a 6-digit code (or a recovery code)' }]);
    }
    const { db } = this.deps.database;
    const now = this.deps.clock.now();
    const tokenHash = this.deps.dataKey.mac('mfa', token);
    const tried = await db
      .updateTable('mfa_challenges')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('attempts', '<', otpPolicy.maxAttempts)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(tried.numUpdatedRows) !== 1) throw invalidGrant('The mfa_token is wrong, expired or used up; sign in again');
    const challenge = await db.selectFrom('mfa_challenges').select('user_id').where('token_hash', '=', tokenHash).executeTakeFirstOrThrow();
    const user = await this.deps.users.get(challenge.user_id);
    const row = await db.selectFrom('user_totp').selectAll().where('user_id', '=', challenge.user_id).executeTakeFirst();
    if (!user?.active || !row || row.enabled !== 1) throw invalidGrant();
    const accepted = code.includes('-') ? await this.useRecoveryCode(row, user, code) : await this.accept(row, user, code, { enabling: false });
    if (!accepted) throw invalidGrant();
    const used = await db.updateTable('mfa_challenges').set({ used_at: now }).where('token_hash', '=', tokenHash).where('used_at', 'is', null).executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) throw invalidGrant();
    return this.deps.tokens.issue(user, ['otp', 'totp']);
  }

  /**
   * Step-up (RFC 9470) within a session: the signed-in user proves the second factor with a
   * TOTP code and gets a token carrying `totp` in `amr` — e.g. right after enrolling.
   */
  async stepUp(context: RequestContext, body: unknown): Promise<UserTokenResponse> {
    const user = await this.user(context);
    const code = parseCode(body, 'code');
    const row = await this.deps.database.db.selectFrom('user_totp').selectAll().where('user_id', '=', user.userId).executeTakeFirst();
    if (!row || row.enabled !== 1) throw new ApiError('conflict', 'TOTP is not on: enrol and activate it first');
    if (!(await this.accept(row, user, code, { enabling: false }))) throw invalidGrant('The code is not the current code of the authenticator, or was used already');
    return this.deps.tokens.issue(user, ['otp', 'totp']);
  }

  /** Turns TOTP off; needs a current code, so a stolen one-factor session cannot. */
  async disable(context: RequestContext, body: unknown): Promise<void> {
    const user = await this.user(context);
    const code = parseCode(body, 'code');
    const { db } = this.deps.database;
    const row = await db.selectFrom('user_totp').selectAll().where('user_id', '=', user.userId).executeTakeFirst();
    if (!row || row.enabled !== 1) throw new ApiError('conflict', 'TOTP is not on');
    if (!(await this.accept(row, user, code, { enabling: false }))) throw validationError([{ field: 'code', message: 'is not the current code of the authenticator' }]);
    await db.deleteFrom('user_totp').where('user_id', '=', user.userId).execute();
    await this.setFlag(context, user, false);
  }

  /** Checks a code and claims its time step (never an earlier or the same one again). */
  private async accept(row: { secret: string; last_step: number }, user: UserState, code: string, options: { enabling: boolean }): Promise<boolean> {
    const totp = this.totp(Secret.fromBase32(this.deps.dataKey.decrypt(row.secret)), user);
    const now = this.deps.clock.now();
    const delta = totp.validate({ token: code, timestamp: now, window: 1 });
    if (delta === null) return false;
    const step = Math.floor(now / 1000 / period) + delta;
    const claimed = await this.deps.database.db
      .updateTable('user_totp')
      .set({ last_step: step, ...(options.enabling ? { enabled: 1 } : {}) })
      .where('user_id', '=', user.userId)
      .where('last_step', '<', step)
      .where('enabled', '=', options.enabling ? 0 : 1)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }

  private async useRecoveryCode(row: { recovery_codes: string }, user: UserState, code: string): Promise<boolean> {
    const hashes = JSON.parse(row.recovery_codes) as string[];
    const index = hashes.findIndex((hash) => this.deps.dataKey.verifyMac(hash, 'recovery', user.userId, code));
    if (index < 0) return false;
    const rest = JSON.stringify(hashes.filter((_, i) => i !== index));
    // Compare-and-set on the list: two uses of one code cannot both win.
    const used = await this.deps.database.db.updateTable('user_totp').set({ recovery_codes: rest }).where('user_id', '=', user.userId).where('recovery_codes', '=', row.recovery_codes).executeTakeFirst();
    return Number(used.numUpdatedRows) === 1;
  }

  private totp(secret: Secret, user: UserState): TOTP {
    return new TOTP({ issuer: 'Booking service', label: user.email ?? user.userId, algorithm: 'SHA1', digits: 6, period, secret });
  }

  private async user(context: RequestContext): Promise<UserState> {
    const user = context.principal.actorType === 'user' ? await this.deps.users.get(context.principal.actorId) : undefined;
    if (!user?.active) throw new ApiError('unauthenticated', 'Sign in as a user first');
    return user;
  }

  /** `users.totp_enabled`, changed through the unit of work: audited, with its outbox event. */
  private async setFlag(context: RequestContext, user: UserState, enabled: boolean): Promise<void> {
    await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
      const row = await unit.asSystem().find(users, user.userId, { lock: 'update' });
      if (!row) throw new ApiError('not_found', 'The user no longer exists');
      await unit.update(users, row, String(row.etag), { totp_enabled: enabled }, { action: enabled ? 'totp-enable' : 'totp-disable' });
      await unit.invalidate('user', user.userId);
    });
  }
}

function parseCode(body: unknown, field: string): string {
  const value = objectBody(body)[field];
  if (typeof value !== 'string' || !/^[0-9]{6}$/.test(value.trim())) throw validationError([{ field, message: 'must be the 6-digit code of the authenticator' }]);
  return value.trim();
}
