import { randomUUID, sign } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestClient } from './harness.js';

/** base64url of a string's UTF-8 bytes, or of raw bytes. */
export function b64url(value: string | Uint8Array): string {
  return Buffer.from(value).toString('base64url');
}

/** The standard claims of a valid assertion for `client`; `undefined` overrides delete. */
export function assertionClaims(client: TestClient, audience: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { iss: client.clientId, sub: client.clientId, aud: audience, jti: randomUUID(), iat: now, exp: now + 120, ...overrides };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return claims;
}

/**
 * A compact JWS signed by hand with the client's EC key, so header and payload can be any
 * object or raw JSON text (duplicate members, odd headers) that jose would refuse to emit.
 */
export function craftAssertion(client: TestClient, header: Record<string, unknown> | string, payload: Record<string, unknown> | string): string {
  const headerText = typeof header === 'string' ? header : JSON.stringify(header);
  const payloadText = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const input = `${b64url(headerText)}.${b64url(payloadText)}`;
  const hash = { ES256: 'sha256', ES384: 'sha384', ES512: 'sha512' }[client.key.alg];
  return `${input}.${b64url(sign(hash, Buffer.from(input), { key: client.key.privateKey, dsaEncoding: 'ieee-p1363' }))}`;
}

const p256Order = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/**
 * The same ES256 JWS with its signature re-encoded as (r, n − s): equally valid, different
 * bytes. A replay check keyed on the token bytes would take it for a new assertion.
 */
export function malleate(token: string): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(signature, 'base64url');
  const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
  const flipped = Buffer.from((p256Order - s).toString(16).padStart(64, '0'), 'hex');
  return `${header}.${payload}.${b64url(Buffer.concat([bytes.subarray(0, 32), flipped]))}`;
}

const descriptions: Readonly<Record<string, string>> = {
  invalid_request: 'The request is missing a required parameter or is otherwise malformed.',
  invalid_client: 'Client authentication failed.',
  unsupported_grant_type: 'The authorization grant type is not supported.',
  invalid_scope: 'The requested scope is invalid, unknown or not allowed for this client.',
  invalid_dpop_proof: 'The DPoP proof is invalid.',
  use_dpop_nonce: 'Authorization server requires nonce in DPoP proof.',
  rate_limited: 'Too many requests; retry after the number of seconds in Retry-After.',
};

/**
 * A token-endpoint refusal: exact status, `no-store`, and a body of exactly `error` plus
 * the code's generic description (never the private reason).
 */
export function expectOAuthError(response: LightMyRequestResponse, status: number, error: string): void {
  expect({ status: response.statusCode, body: response.json() as unknown }).toEqual({ status, body: { error, error_description: descriptions[error] } });
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['content-type']).toMatch(/^application\/json/);
}

/** A 401/403 problem with its `WWW-Authenticate` header. */
export function expectAuthProblem(response: LightMyRequestResponse, status: number, code: string, challenge: RegExp): void {
  expect({ status: response.statusCode, code: (response.json() as { code?: unknown }).code }).toEqual({ status, code });
  expect(String(response.headers['www-authenticate'])).toMatch(challenge);
}
