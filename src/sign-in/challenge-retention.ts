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
  /** Per-day message counters of the daily caps (`otp_daily_counts`) for days long over. */
  readonly dailyCounts: number;
}

/**
 * Removes sign-in challenges that expired more than {@link expiredChallengeGraceMs} ago,
 * used or not. They live 600 s (a code) or 300 s (a second-factor step) and are never read
 * again after that, so without this every sign-in would leave a row for good. The daily
 * caps' counters go the same way once their UTC day ended more than the grace ago: only
 * today's counter is ever read.
 */
export async function purgeExpiredChallenges(database: Database, now: number): Promise<ChallengePurge> {
  const cutoff = now - expiredChallengeGraceMs;
  const otp = await database.db.deleteFrom('otp_challenges').where('expires_at', '<', cutoff).executeTakeFirst();
  const mfa = await database.db.deleteFrom('mfa_challenges').where('expires_at', '<', cutoff).executeTakeFirst();
  // `day` is the UTC date `YYYY-MM-DD` (text order is date order): a day before the cutoff's ended before it.
  const dailyCounts = await database.db.deleteFrom('otp_daily_counts').where('day', '<', new Date(cutoff).toISOString().slice(0, 10)).executeTakeFirst();
  return { otp: Number(otp.numDeletedRows), mfa: Number(mfa.numDeletedRows), dailyCounts: Number(dailyCounts.numDeletedRows) };
}
