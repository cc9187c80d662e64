import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { ApiError } from '../http/errors.js';

/**
 * The TOTP lock-out (NIST SP 800-63B §5.2.2): refused TOTP codes of a user are counted over
 * every entry point (activate, sign-in second factor, step-up, disable) until one is
 * accepted. The 5th consecutive refusal locks TOTP for 1 min, each further one for twice as
 * long as the one before, at most 24 h; while locked, codes are refused unchecked. So 100
 * consecutive failures take over 80 days. Recovery codes stay usable (see `TotpService.verify`).
 */
export const totpLockPolicy = { freeTries: 5, firstLockMs: 60_000, maxLockMs: 86_400_000 } as const;

/** How long TOTP stays locked after the `failures`-th consecutive refused code (0: not locked). */
export function totpLockMs(failures: number): number {
  const { freeTries, firstLockMs, maxLockMs } = totpLockPolicy;
  return failures < freeTries ? 0 : Math.min(firstLockMs * 2 ** (failures - freeTries), maxLockMs);
}

/**
 * `user_totp.locked_until` after one more refused try at `now`, as one SQL expression on the
 * row's `failed_tries` (the count before this try), so the count and the lock it earns are
 * written by one conditional statement.
 */
export function lockedUntilAfterTry(now: number): RawBuilder<number> {
  const { freeTries, maxLockMs } = totpLockPolicy;
  // The lock that the try after `failed_tries` earns, spelt out per count up to the cap.
  const steps = [];
  for (let before = freeTries - 1; totpLockMs(before + 1) < maxLockMs; before += 1) steps.push(sql`when failed_tries = ${before} then cast(${now + totpLockMs(before + 1)} as bigint)`);
  return sql<number>`case when failed_tries < ${freeTries - 1} then locked_until ${sql.join(steps, sql` `)} else cast(${now + maxLockMs} as bigint) end`;
}

/** A try taken (`failures` counts it, as if refused), or refused unchecked: TOTP is locked until `lockedUntil`. */
export type Try = { readonly failures: number } | { readonly lockedUntil: number };

/** The answer to a TOTP code sent while TOTP is locked: 429 `rate_limited` with `Retry-After`, the code unchecked. */
export function totpLocked(lockedUntil: number, now: number): ApiError {
  const wait = Math.max(1, Math.ceil((lockedUntil - now) / 1000));
  return new ApiError('rate_limited', `Too many wrong TOTP codes: TOTP is locked for this user; retry in ${wait} s, or sign in with a recovery code`, {
    headers: { 'retry-after': String(wait) },
  });
}
