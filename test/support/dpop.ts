import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { computeAth } from '../../src/security/dpop.js';

/** A client's DPoP key: only ever used for proofs, never for client authentication. */
export interface DpopKey {
  readonly alg: string;
  readonly privateKey: CryptoKey;
  /** Public members only, as sent in the proof header. */
  readonly jwk: JWK;
  /** RFC 7638 thumbprint, the `cnf.jkt` of tokens bound to this key. */
  readonly jkt: string;
}

/** A fresh DPoP key pair. */
export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

export interface ProofOptions {
  readonly htm: string;
  readonly htu: string;
  /** Adds `ath` for this access token. */
  readonly accessToken?: string;
  readonly nonce?: string;
  /** Epoch seconds; default now. */
  readonly iat?: number;
  readonly jti?: string;
  /** Extra or replacing claims; `undefined` values remove a claim. */
  readonly claims?: Record<string, unknown>;
  /** Extra or replacing header members. */
  readonly header?: Record<string, unknown>;
}

/** A DPoP proof JWT (RFC 9449 §4.2) signed with `key`. */
export async function dpopProof(key: DpopKey, options: ProofOptions): Promise<string> {
  const payload: Record<string, unknown> = {
    jti: options.jti ?? randomUUID(),
    htm: options.htm,
    htu: options.htu,
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    ...(options.accessToken === undefined ? {} : { ath: computeAth(options.accessToken) }),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
    ...options.claims,
  };
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk, ...options.header }).sign(key.privateKey);
}
