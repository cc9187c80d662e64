import type { Database } from '../db/dialect.js';

/**
 * How long an expired sign-in challenge stays before the retention job removes it. A code
 * presented in this time is still refused as `expired` in the audit trail rather than as
 * unknown; after it, nothing about the attempt is worth keeping.
 */
const expiredChallengeGraceMs = 24 * 60 * 60 * 1000;

export interface ChallengePurge {
  /** One-time-code challenges (`otp_challenges`). */
  readonly otp: number;
  /** Second-factor steps: a one-time code was right and the TOTP code is still due (`mfa_challenges`). */
  readonly mfa: number;
}

/**
 * Removes sign-in challenges that expired more than {@link expiredChallengeGraceMs} ago,
 * used or not. They live 600 s (a code) or 300 s (a second-factor step) and are never read
 * again after that, so without this every sign-in would leave a row for good.
 */
export async function purgeExpiredChallenges(database: Database, now: number): Promise<ChallengePurge> {
  const cutoff = now - expiredChallengeGraceMs;
  const otp = await database.db.deleteFrom('otp_challenges').where('expires_at', '<', cutoff).executeTakeFirst();
  const mfa = await database.db.deleteFrom('mfa_challenges').where('expires_at', '<', cutoff).executeTakeFirst();
  return { otp: Number(otp.numDeletedRows), mfa: Number(mfa.numDeletedRows) };
}
