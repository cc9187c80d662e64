import { readFileSync } from 'node:fs';
import { exportJWK, importJWK, importPKCS8 } from 'jose';
import { algOfPkcs8, createClient } from '../packages/client/src/index.js';
import type { DpopKeyPair } from '../packages/client/src/index.js';
import { loadConfig } from '../src/config/config.js';
import { validationError } from '../src/http/errors.js';
import { requireOption, usageError } from './operator-error.js';

type Maybe = string | undefined;

function readPem(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw validationError([{ field: flag, message: `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}` }]);
  }
}

/** A PKCS8 EC key as a DPoP key pair (the public half derived from the private). */
async function dpopKeyPair(pem: string): Promise<DpopKeyPair> {
  const alg = algOfPkcs8(pem);
  const privateKey = await importPKCS8(pem, alg, { extractable: true });
  const { kty, crv, x, y } = await exportJWK(privateKey);
  const publicKey = await importJWK({ kty, crv, x, y }, alg);
  if (publicKey instanceof Uint8Array) throw new Error('unexpected symmetric key');
  return { privateKey, publicKey };
}

/**
 * `cli token --client ID --key FILE [--scope "a:b c:d"] [--dpop] [--dpop-key FILE] [--kid K] [--url URL]`:
 * asks the running service's token endpoint for an access token with a `private_key_jwt`
 * assertion signed by `--key`, through the client library, and prints the token response.
 * The service is found at `--url`, default `PUBLIC_URL` of the same settings the server
 * reads. `--dpop` binds the token to `--dpop-key` (default: the `--key` file), whose
 * thumbprint is printed as `dpop_jkt`; every call with it then needs a DPoP proof.
 */
export async function token(input: { client: Maybe; key: Maybe; scope: Maybe; dpop: boolean; dpopKey: Maybe; kid: Maybe; url: Maybe }) {
  const clientId = requireOption(input.client, '--client');
  const keyFile = requireOption(input.key, '--key');
  if (input.dpopKey && !input.dpop) throw usageError('--dpop-key needs --dpop', '--dpop-key');
  const privateKey = readPem(keyFile, '--key');
  const url = input.url ?? loadConfig(process.env, (path) => readFileSync(path, 'utf8')).publicUrl;
  const client = createClient({
    baseUrl: url,
    clientId,
    privateKey,
    retry: { maxRetryAfterSeconds: 5 },
    ...(input.kid ? { kid: input.kid } : {}),
    ...(input.scope ? { scope: input.scope } : {}),
    ...(input.dpop ? { dpop: await dpopKeyPair(input.dpopKey ? readPem(input.dpopKey, '--dpop-key') : privateKey) } : {}),
  });
  const issued = await client.accessToken();
  const jkt = await client.dpopThumbprint();
  return {
    access_token: issued.value,
    token_type: issued.type,
    expires_in: Math.round((issued.expiresAt - issued.issuedAt) / 1000),
    scope: issued.scope,
    ...(jkt ? { dpop_jkt: jkt } : {}),
  };
}
