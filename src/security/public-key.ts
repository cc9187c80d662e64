/**
 * Client public keys: registered as SPKI PEM, stored as a public JWK plus its `alg`.
 * Only EC keys on the NIST curves are accepted, and each curve is bound to exactly one
 * algorithm so an assertion cannot pick a weaker pairing than the key was registered for.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

/** Algorithms a client authentication key may use. */
export type ClientKeyAlg = 'ES256' | 'ES384' | 'ES512';

/** A validated client public key. */
export interface ClientPublicKey {
  /** The only algorithm this key verifies (bound to its curve). */
  readonly alg: ClientKeyAlg;
  /** Usable by jose `compactVerify`/`jwtVerify`. */
  readonly key: KeyObject;
  /** Public members only: `kty`, `crv`, `x`, `y`. */
  readonly jwk: Readonly<JWK>;
  /** RFC 7638 SHA-256 thumbprint, base64url. */
  readonly thumbprint: string;
}

/** A key that is not an acceptable client public key; the message says why. */
export class PublicKeyError extends Error {
  readonly code = 'invalid_public_key';

  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PublicKeyError';
  }
}

const algByOpenSslCurve: Readonly<Record<string, ClientKeyAlg>> = {
  prime256v1: 'ES256',
  secp384r1: 'ES384',
  secp521r1: 'ES512',
};

const crvByAlg: Readonly<Record<ClientKeyAlg, string>> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };

/** The JWK `crv` a client key algorithm requires. */
export function curveForAlg(alg: ClientKeyAlg): string {
  return crvByAlg[alg];
}

// Exactly one SPKI block: the label is checked because Node's createPublicKey would happily
// derive a public key from a private key or certificate PEM, and we must never accept those.
const spkiPem = /^-----BEGIN PUBLIC KEY-----\r?\n((?:[A-Za-z0-9+/=]+\r?\n)+)-----END PUBLIC KEY-----$/;

/** Imports an SPKI PEM holding an EC public key on P-256, P-384 or P-521. */
export async function importClientPublicKey(pem: string): Promise<ClientPublicKey> {
  if (typeof pem !== 'string' || pem.length > 4096) throw new PublicKeyError('public key must be a PEM string of at most 4096 characters');
  const match = spkiPem.exec(pem.trim());
  if (!match?.[1]) {
    throw new PublicKeyError('public key must be a single SPKI PEM block ("-----BEGIN PUBLIC KEY-----"); private keys and certificates are refused');
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(match[1].replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
  } catch (cause) {
    throw new PublicKeyError('public key is not a valid SPKI structure', { cause });
  }
  return toClientPublicKey(key);
}

/**
 * Re-creates a stored client key from its public JWK and `alg` (cheap, synchronous; no
 * thumbprint). Refuses anything but a public EC JWK on the curve `alg` requires.
 */
export function clientKeyFromJwk(jwk: Readonly<JWK>, alg: ClientKeyAlg): KeyObject {
  if (jwk.kty !== 'EC' || jwk.crv !== crvByAlg[alg]) throw new PublicKeyError(`stored key is not an EC ${crvByAlg[alg]} key as ${alg} requires`);
  if ('d' in jwk) throw new PublicKeyError('stored key is a private key');
  if (typeof jwk.x !== 'string' || typeof jwk.y !== 'string') throw new PublicKeyError('stored key lacks x or y');
  try {
    return createPublicKey({ key: { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' });
  } catch (cause) {
    throw new PublicKeyError('stored key is not a valid EC public key', { cause });
  }
}

async function toClientPublicKey(key: KeyObject): Promise<ClientPublicKey> {
  if (key.asymmetricKeyType !== 'ec') {
    throw new PublicKeyError(`public key type "${key.asymmetricKeyType ?? 'unknown'}" is not allowed; use an EC key on P-256, P-384 or P-521`);
  }
  const curve = key.asymmetricKeyDetails?.namedCurve ?? 'unknown';
  const alg = algByOpenSslCurve[curve];
  if (!alg) throw new PublicKeyError(`EC curve "${curve}" is not allowed; use P-256, P-384 or P-521`);
  const exported = key.export({ format: 'jwk' });
  const jwk: JWK = Object.freeze({ kty: 'EC', crv: crvByAlg[alg], x: exported.x, y: exported.y });
  return Object.freeze({ alg, key, jwk, thumbprint: await calculateJwkThumbprint(jwk, 'sha256') });
}
