import { randomBytes } from 'node:crypto';
import { TOTP } from 'otpauth';
import type { Secret } from 'otpauth';

/** Recovery codes handed out at each enrolment. */
export const recoveryCodeCount = 10;

/** The TOTP parameters (docs/end-users.md "Sign-in with one-time password and TOTP"): RFC 6238 with SHA-1, 6 digits, 30 s steps, ±1 step. */
export const totpPolicy = { algorithm: 'SHA1', digits: 6, period: 30, window: 1 } as const;

/**
 * The otpauth generator the service signs users in with. `overrides` exists for the RFC 6238
 * Appendix B vectors (8 digits, SHA-256/512 seeds): they run through this same construction.
 */
export function totpGenerator(secret: Secret, label: string, overrides: { algorithm?: 'SHA1' | 'SHA256' | 'SHA512'; digits?: number } = {}): TOTP {
  return new TOTP({ issuer: 'Booking service', label, algorithm: overrides.algorithm ?? totpPolicy.algorithm, digits: overrides.digits ?? totpPolicy.digits, period: totpPolicy.period, secret });
}

/**
 * The RFC 6238 time step a code belongs to at `now` (ms), within ±1 step, or `null`. The
 * service then claims that step with a compare-and-set, so each code is accepted once.
 */
export function matchingStep(totp: TOTP, code: string, now: number): number | null {
  // Only ASCII digits can match; otpauth compares bytes and throws on a code whose UTF-8 length differs.
  if (code.length !== totp.digits || !/^[0-9]+$/.test(code)) return null;
  const delta = totp.validate({ token: code, timestamp: now, window: totpPolicy.window });
  return delta === null ? null : Math.floor(now / 1000 / totpPolicy.period) + delta;
}

/** A new recovery code: 64 random bits as two groups of 8 hex digits (the `-` tells it from a TOTP code). */
export function recoveryCode(): string {
  const text = randomBytes(8).toString('hex');
  return `${text.slice(0, 8)}-${text.slice(8)}`.slice(0, 17);
}
