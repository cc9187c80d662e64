import { ApiError } from '../http/errors.js';
import type { ErrorCode } from '../http/errors.js';
import { challenge } from '../http/challenge.js';
import type { Scheme } from '../http/challenge.js';

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
