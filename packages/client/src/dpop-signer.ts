import { base64url, calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import type { Clock } from './clock.js';

/** A DPoP key pair of your own (default: the client generates a non-extractable ES256 pair). */
export interface DpopKeyPair {
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  /** `ES256`, `ES384`, `ES512`, `EdDSA` or `RS256`; default read from an EC or Ed25519 key. */
  readonly alg?: string;
}

const curveAlgs: Readonly<Record<string, string>> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };

/** The JWS algorithm of an ECDSA or Ed25519 key (RSA keys need `alg` given). */
function algOf(key: CryptoKey): string {
  const { name, namedCurve } = key.algorithm as { name: string; namedCurve?: string };
  const alg = name === 'Ed25519' ? 'EdDSA' : name === 'ECDSA' ? curveAlgs[namedCurve ?? ''] : undefined;
  if (!alg) throw new TypeError('pass dpop.alg: cannot tell the algorithm of this DPoP key');
  return alg;
}

/** What a proof covers (RFC 9449 §4.2). */
export interface ProofRequest {
  readonly method: string;
  /** The request URL; query and fragment are dropped, as `htu` requires. */
  readonly url: string;
  /** Adds `ath`, binding the proof to this access token. */
  readonly accessToken?: string;
}

/**
 * Signs DPoP proofs with one key and remembers the server's latest `DPoP-Nonce`, so every
 * proof after the first nonce challenge carries it (RFC 9449 §8).
 */
export class DpopSigner {
  readonly #clock: Clock;
  readonly #alg: string;
  readonly #keys: Promise<{ privateKey: CryptoKey; jwk: JWK; jkt: string }>;
  #nonce: string | undefined;

  constructor(clock: Clock, keyPair?: DpopKeyPair) {
    this.#clock = clock;
    this.#alg = keyPair?.alg ?? (keyPair ? algOf(keyPair.privateKey) : 'ES256');
    this.#keys = (async () => {
      const pair = keyPair ?? (await generateKeyPair('ES256', { extractable: false }));
      const { kty, crv, x, y, n, e } = await exportJWK(pair.publicKey);
      const jwk = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined)) as JWK;
      return { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
    })();
    // A rejected key import surfaces on first use, not as an unhandled rejection now.
    this.#keys.catch(() => undefined);
  }

  /** RFC 7638 thumbprint of the public key: the `cnf.jkt` of tokens bound to it. */
  async thumbprint(): Promise<string> {
    return (await this.#keys).jkt;
  }

  /** Remembers a nonce the server sent (`DPoP-Nonce`). */
  rememberNonce(nonce: string | null | undefined): void {
    if (nonce) this.#nonce = nonce;
  }

  /** The nonce proofs currently carry. */
  get nonce(): string | undefined {
    return this.#nonce;
  }

  /** A fresh proof JWT for one request. */
  async proof(request: ProofRequest): Promise<string> {
    const { privateKey, jwk } = await this.#keys;
    const url = new URL(request.url);
    const claims: Record<string, unknown> = {
      jti: crypto.randomUUID(),
      htm: request.method.toUpperCase(),
      htu: `${url.origin}${url.pathname}`,
      iat: Math.floor(this.#clock.now() / 1000),
    };
    if (request.accessToken !== undefined) {
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(request.accessToken));
      claims.ath = base64url.encode(new Uint8Array(digest));
    }
    if (this.#nonce !== undefined) claims.nonce = this.#nonce;
    return new SignJWT(claims).setProtectedHeader({ alg: this.#alg, typ: 'dpop+jwt', jwk }).sign(privateKey);
  }
}
