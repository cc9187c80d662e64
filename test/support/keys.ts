import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

export interface TestKeyPair {
  readonly privateKey: KeyObject;
  readonly publicPem: string;
  readonly alg: 'ES256' | 'ES384' | 'ES512';
}

const curves = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' } as const;

/** A fresh EC key pair as a client would hold it. */
export function clientKeyPair(alg: TestKeyPair['alg'] = 'ES256'): TestKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: curves[alg] });
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), alg };
}

/** A client assertion (RFC 7523) with overridable header and claims. */
export async function signAssertion(
  key: TestKeyPair,
  clientId: string,
  audience: string,
  options: { kid?: string; now?: number; claims?: Record<string, unknown>; header?: Record<string, unknown> } = {},
): Promise<string> {
  const now = options.now ?? Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: randomUUID(), ...options.claims })
    .setProtectedHeader({ alg: key.alg, ...(options.kid ? { kid: options.kid } : {}), ...options.header })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .sign(key.privateKey);
}
