/**
 * Client-side OAuth messages, pre-signed: client assertions (RFC 7523), token request
 * bodies and DPoP proofs (RFC 9449). `iat` is given by the caller so a pool built for a
 * long run can spread its times over the run instead of ageing past the server's window.
 */
import { randomUUID } from 'node:crypto';
import type { BenchClient } from './fixtures.js';
import { accessTokenHash, signEs256 } from './jws.js';
import type { Es256Key } from './jws.js';

export const assertionType = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A client assertion for `audience` (the token endpoint URL). */
export function clientAssertion(client: BenchClient, audience: string, iat: number): string {
  return signEs256(client.key, { kid: client.kid, typ: 'JWT' }, { iss: client.clientId, sub: client.clientId, aud: audience, jti: randomUUID(), iat, exp: iat + 240 });
}

/** The form body of a client credentials request; no `scope` asks for every assigned capability. */
export function tokenRequestBody(clientId: string, assertion: string, scope?: string): string {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_assertion_type: assertionType, client_assertion: assertion });
  if (scope) form.set('scope', scope);
  return form.toString();
}

/** A DPoP proof for one request; `accessToken` adds `ath` (calls to the API). */
export function dpopProof(key: Es256Key, htm: string, htu: string, iat: number, accessToken?: string): string {
  const claims = { jti: randomUUID(), htm, htu, iat, ...(accessToken === undefined ? {} : { ath: accessTokenHash(accessToken) }) };
  return signEs256(key, { typ: 'dpop+jwt', jwk: key.publicJwk }, claims);
}

/** `iat` for item `index` of `count` used over `seconds` from now: spread so none is used far from its time. */
export function spreadIat(index: number, count: number, seconds: number): number {
  return Math.floor(Date.now() / 1000 + (index / Math.max(1, count)) * seconds);
}

/** Asks the running service for an access token (Bearer, or DPoP-bound to `dpopKey`). */
export async function fetchToken(origin: string, tokenEndpoint: string, client: BenchClient, dpopKey?: Es256Key): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (dpopKey) headers.dpop = dpopProof(dpopKey, 'POST', tokenEndpoint, now);
  const response = await fetch(`${origin}/v1/auth/token`, { method: 'POST', headers, body: tokenRequestBody(client.clientId, clientAssertion(client, tokenEndpoint, now)) });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}
