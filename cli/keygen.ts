import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { calculateJwkThumbprint } from 'jose';
import type { JWK } from 'jose';
import { validationError } from '../src/http/errors.js';

/**
 * `cli keygen --out NAME`: a P-256 key pair for an API client. The private key goes to
 * `NAME.key` (PKCS8 PEM, mode 0600), the public key to `NAME.pub` (SPKI PEM, for
 * `client create --public-key`). Existing files are never overwritten. Prints the file
 * names, the algorithm and the `kid` the service will give the key by default (its
 * RFC 7638 thumbprint).
 */
export async function keygen(input: { out: string | undefined }): Promise<{ private_key: string; public_key: string; alg: 'ES256'; kid: string }> {
  if (!input.out) throw validationError([{ field: '--out', message: 'is required (file name without extension, e.g. client)' }]);
  const privateFile = `${input.out}.key`;
  const publicFile = `${input.out}.pub`;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  try {
    // 'wx': fail rather than replace a key someone may still be using.
    writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
    writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw validationError([{ field: '--out', message: code === 'EEXIST' ? `${privateFile} or ${publicFile} already exists; remove it or choose another --out` : `cannot write ${input.out}.*: ${code ?? 'error'}` }]);
  }
  // The mode given at creation is filtered by the umask; make sure of 0600 whatever it is.
  chmodSync(privateFile, 0o600);
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as JWK;
  return { private_key: privateFile, public_key: publicFile, alg: 'ES256', kid: await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256') };
}
