import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { calculateJwkThumbprint } from 'jose';
import type { JWK } from 'jose';
import { validationError } from '../src/http/errors.js';
import { requireOption } from './operator-error.js';

/** A P-256 key pair for an API client, in memory, with the `kid` the service gives it by default. */
export interface ClientKeyPair {
  readonly privatePem: string;
  readonly publicPem: string;
  readonly kid: string;
}

/** Generates a P-256 pair; `kid` is its RFC 7638 thumbprint, as the service computes it. */
export async function generateClientKey(): Promise<ClientKeyPair> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as JWK;
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    kid: await calculateJwkThumbprint({ kty, crv, x, y }, 'sha256'),
  };
}

/** Refuses early when `NAME.key` or `NAME.pub` exists: an existing key may still be in use. */
export function checkKeyFilesFree(out: string | undefined, flag: string): string {
  const name = requireOption(out, flag, ' (file name without extension, e.g. client)');
  if (existsSync(`${name}.key`) || existsSync(`${name}.pub`)) throw validationError([{ field: flag, message: `${name}.key or ${name}.pub already exists; remove it or choose another name` }]);
  return name;
}

/** Writes `NAME.key` (PKCS8 PEM, mode 0600) and `NAME.pub` (SPKI PEM); never overwrites. */
export function writeKeyFiles(out: string, pair: ClientKeyPair, flag: string): { private_key: string; public_key: string } {
  const privateFile = `${out}.key`;
  const publicFile = `${out}.pub`;
  try {
    // 'wx': fail rather than replace a key someone may still be using.
    writeFileSync(privateFile, pair.privatePem, { mode: 0o600, flag: 'wx' });
    writeFileSync(publicFile, pair.publicPem, { mode: 0o644, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw validationError([
      { field: flag, message: code === 'EEXIST' ? `${privateFile} or ${publicFile} already exists; remove it or choose another name` : `cannot write ${out}.*: ${code ?? 'error'}` },
    ]);
  }
  // The mode given at creation is filtered by the umask; make sure of 0600 whatever it is.
  chmodSync(privateFile, 0o600);
  return { private_key: privateFile, public_key: publicFile };
}

/**
 * `cli keygen --out NAME`: a P-256 key pair for an API client. The private key goes to
 * `NAME.key` (PKCS8 PEM, mode 0600), the public key to `NAME.pub` (SPKI PEM, for
 * `client create --public-key`). Existing files are never overwritten. Prints the file
 * names, the algorithm and the `kid` the service will give the key by default (its
 * RFC 7638 thumbprint).
 */
export async function keygen(input: { out: string | undefined }): Promise<{ private_key: string; public_key: string; alg: 'ES256'; kid: string }> {
  const out = checkKeyFilesFree(input.out, '--out');
  const pair = await generateClientKey();
  return { ...writeKeyFiles(out, pair, '--out'), alg: 'ES256', kid: pair.kid };
}
