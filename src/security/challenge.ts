import { ApiError } from '../http/errors.js';
import type { ErrorCode } from '../http/errors.js';

export const dpopAlgorithms = 'ES256 ES384 ES512 RS256 EdDSA';
const realm = 'booking-api';

export type Scheme = 'Bearer' | 'DPoP';

/** RFC 6750 §3 / RFC 9449 §7.1 challenge for one scheme. */
export function challenge(scheme: Scheme, error?: string, extra: Record<string, string> = {}): string {
  const params: string[] = [`realm="${realm}"`];
  if (error) params.push(`error="${error}"`);
  for (const [key, value] of Object.entries(extra)) params.push(`${key}="${value}"`);
  if (scheme === 'DPoP') params.push(`algs="${dpopAlgorithms}"`);
  return `${scheme} ${params.join(', ')}`;
}

/**
 * A 401/403 problem with its `WWW-Authenticate` header. Without a presented token both
 * schemes are offered and no error code is given (RFC 6750 §3.1).
 */
export function authError(
  code: ErrorCode,
  detail: string,
  scheme: Scheme | null,
  oauthError?: string,
  options: { privateReason?: string; extra?: Record<string, string>; headers?: Record<string, string> } = {},
): ApiError {
  const header = scheme === null ? `${challenge('Bearer')}, ${challenge('DPoP')}` : challenge(scheme, oauthError, options.extra);
  return new ApiError(code, detail, {
    headers: { 'www-authenticate': header, ...options.headers },
    ...(options.privateReason ? { privateReason: options.privateReason } : {}),
  });
}
