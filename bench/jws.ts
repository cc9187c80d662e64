import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';

/**
 * An ES256 key pair as a client holds it. Requests are pre-signed with node:crypto's
 * synchronous `sign`, the cheapest way to build tens of thousands of them before a run.
 */
export interface Es256Key {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly publicPem: string;
  /** Public members only (`kty`, `crv`, `x`, `y`). */
  readonly publicJwk: { readonly kty: string; readonly crv: string; readonly x: string; readonly y: string };
  /** RFC 7638 SHA-256 thumbprint. */
  readonly thumbprint: string;
}

export function es256Key(): Es256Key {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' }) as JsonWebKey;
  const publicJwk = { kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x), y: String(jwk.y) };
  // RFC 7638: required members in lexicographic order, no whitespace.
  const canonical = JSON.stringify({ crv: publicJwk.crv, kty: publicJwk.kty, x: publicJwk.x, y: publicJwk.y });
  return {
    privateKey,
    publicKey,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    publicJwk,
    thumbprint: createHash('sha256').update(canonical).digest('base64url'),
  };
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A compact ES256 JWS (JOSE signature encoding, not DER). */
export function signEs256(key: Es256Key, header: object, payload: object): string {
  const input = `${encode({ alg: 'ES256', ...header })}.${encode(payload)}`;
  const signature = sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** base64url(SHA-256(token)): the `ath` of a DPoP proof sent with `token`. */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
