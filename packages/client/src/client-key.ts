import { calculateJwkThumbprint, exportJWK, importPKCS8 } from 'jose';
import type { CryptoKey } from 'jose';

/** Algorithms the service accepts for client keys; the key's curve fixes which one. */
export type ClientKeyAlg = 'ES256' | 'ES384' | 'ES512';

/** A client's private key, ready to sign assertions. */
export interface ClientKey {
  readonly key: CryptoKey;
  readonly alg: ClientKeyAlg;
  /** The `kid` to name in assertions. */
  readonly kid: string;
}

const algOfCurve: Readonly<Record<string, ClientKeyAlg>> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };

// Named-curve OIDs as DER (tag, length, value), as they appear in a PKCS8 EC key.
const curveOids: readonly [ClientKeyAlg, readonly number[]][] = [
  ['ES256', [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07]],
  ['ES384', [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22]],
  ['ES512', [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23]],
];

function pemBytes(pem: string): Uint8Array {
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
  return Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
}

function contains(haystack: Uint8Array, needle: readonly number[]): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** The algorithm of a PKCS8 EC private key, read from its curve OID. */
export function algOfPkcs8(pem: string): ClientKeyAlg {
  if (!pem.includes('-----BEGIN PRIVATE KEY-----')) throw new TypeError('privateKey must be a PKCS8 PEM ("BEGIN PRIVATE KEY"); convert with: openssl pkcs8 -topk8 -nocrypt');
  const der = pemBytes(pem);
  const found = curveOids.find(([, oid]) => contains(der, oid));
  if (!found) throw new TypeError('privateKey is not an EC key on P-256, P-384 or P-521');
  return found[0];
}

/**
 * Imports the client's private key (PKCS8 PEM or a WebCrypto ECDSA key). Without `kid`,
 * uses the RFC 7638 thumbprint of the public key, which is the service's default `kid`
 * (that needs the key's public part: a PEM, or an extractable CryptoKey).
 */
export async function importClientKey(privateKey: string | CryptoKey, kid?: string): Promise<ClientKey> {
  let key: CryptoKey;
  let alg: ClientKeyAlg;
  if (typeof privateKey === 'string') {
    alg = algOfPkcs8(privateKey);
    key = await importPKCS8(privateKey, alg, { extractable: kid === undefined });
  } else {
    const curve = (privateKey.algorithm as { namedCurve?: string }).namedCurve ?? '';
    const found = algOfCurve[curve];
    if (privateKey.algorithm.name !== 'ECDSA' || !found) throw new TypeError('privateKey must be an ECDSA key on P-256, P-384 or P-521');
    key = privateKey;
    alg = found;
  }
  if (kid !== undefined) return { key, alg, kid };
  if (!key.extractable) throw new TypeError('pass kid: the key is not extractable, so its thumbprint cannot be computed');
  const { kty, crv, x, y } = await exportJWK(key);
  return { key, alg, kid: await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256') };
}
