/**
 * ES512 compact JWS signing (RFC 7515 §7.1, RFC 7518 §3.4) of the service's own access
 * tokens, with an {@link Es512Signer} (the system libcrypto, or node:crypto). Only signing
 * lives here: every verification still goes through `jose`. The reason is cost: both
 * signers run on the libuv pool with a few microseconds of main-thread work, where
 * WebCrypto's promise glue under jose keeps the main thread busy per signature, and Node's
 * bundled OpenSSL signs P-521 several times slower than the system's
 * (docs/benchmarks-history.md "Token issuance"). The input is JSON we built ourselves, so
 * there is no JOSE parsing to get wrong; the tests verify the output with `jose` and
 * openid-client.
 */
import type { KeyObject } from 'node:crypto';
import { BoundedCache } from '../lib/bounded-cache.js';
import { es512SignatureBytes, type Es512Signer } from './es512-signer.js';

// The protected header is the same for every token of a key: encode it once per kid. Keys
// rotate rarely; the bound only guards against an unexpected caller.
const encodedHeaders = new BoundedCache<string, string>(100);

function encodedHeader(kid: string, typ: string): string {
  return encodedHeaders.get(`${typ}\u0000${kid}`, () => Buffer.from(JSON.stringify({ alg: 'ES512', kid, typ })).toString('base64url'));
}

// Key objects already checked (asymmetricKeyDetails crosses into C++ on every read).
const checkedKeys = new WeakSet<KeyObject>();

/** Whether `key` is a P-521 private key, the only key this signer accepts. */
export function isP521PrivateKey(key: KeyObject): boolean {
  if (checkedKeys.has(key)) return true;
  const ok = key.type === 'private' && key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'secp521r1';
  if (ok) checkedKeys.add(key);
  return ok;
}

/**
 * Signs `payload` as a compact JWS with header `{ alg: 'ES512', kid, typ }`. The signature
 * is computed on the libuv thread pool; the promise settles on the main thread.
 */
export async function signEs512Jws(payload: object, key: KeyObject, header: { readonly kid: string; readonly typ: string }, signer: Es512Signer): Promise<string> {
  if (!isP521PrivateKey(key)) throw new TypeError('ES512 needs a P-521 private key');
  const input = `${encodedHeader(header.kid, header.typ)}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  const signature = await signer.sign(Buffer.from(input, 'latin1'), key);
  if (signature.length !== es512SignatureBytes) throw new Error(`unexpected ES512 signature length ${signature.length}`);
  return `${input}.${signature.toString('base64url')}`;
}
