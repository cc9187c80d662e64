import type { FastifyRequest } from 'fastify';
import { dpopAlgorithms } from '../core/dpop-algorithms.js';

const realm = 'booking-api';

/** The two schemes an access token is presented with. */
export type Scheme = 'Bearer' | 'DPoP';

/** RFC 6750 §3 / RFC 9449 §7.1 challenge for one scheme. */
export function challenge(scheme: Scheme, error?: string, extra: Record<string, string> = {}): string {
  const params: string[] = [`realm="${realm}"`];
  if (error) params.push(`error="${error}"`);
  for (const [key, value] of Object.entries(extra)) params.push(`${key}="${value}"`);
  if (scheme === 'DPoP') params.push(`algs="${dpopAlgorithms}"`);
  return `${scheme} ${params.join(', ')}`;
}

/** The scheme a request's `Authorization` header names, with or without a token after it: `DPoP`, else `Bearer`. */
export function schemeOf(request: FastifyRequest): Scheme {
  return /^\s*dpop(\s|$)/i.test(request.headers.authorization ?? '') ? 'DPoP' : 'Bearer';
}
