/**
 * The crypto cost floor, measured in its own process: how many token issuances (one ES256
 * assertion verification + one ES512 access-token signature) and how many uncached API
 * calls (one ES512 verification) this machine's crypto allows at most, with `jose` as the
 * service uses it, with node:crypto directly, and with the service's system-libcrypto ES512
 * signer (when this machine has one). Prints one JSON object on stdout.
 *
 * Usage: tsx bench/crypto-limit.ts [--seconds 2] [--concurrency 10]
 */
import { createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { parseArgs } from 'node:util';
import { compactVerify, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import type { CryptoKey } from 'jose';
import { chooseEs512Signer } from '../src/security/libcrypto-es512-signer.js';
import { es256Key, signEs256 } from './jws.js';

export interface CryptoRate {
  /** Operations per second, one at a time (one event loop, awaiting each). */
  readonly sequential: number | null;
  /** Operations per second with `concurrency` in flight (WebCrypto and callback crypto run on the libuv pool). */
  readonly concurrent: number | null;
}

export interface CryptoLimitReport {
  readonly seconds: number;
  readonly concurrency: number;
  /**
   * ES256 verify + ES512 sign: the cost floor of one token. `libcrypto`: ES256 with jose and
   * ES512 with the service's system-libcrypto signer (null where it is unavailable).
   */
  readonly tokenFloor: { readonly jose: CryptoRate; readonly nodeSync: CryptoRate; readonly nodeAsync: CryptoRate; readonly libcrypto?: CryptoRate | null };
  /** ES512 verify: the cost of an API call with a token not in the cache. */
  readonly es512Verify: { readonly jose: CryptoRate; readonly nodeSync: CryptoRate; readonly nodeAsync: CryptoRate };
  /** ES256 verify alone: a DPoP proof or a client assertion. */
  readonly es256Verify: { readonly jose: CryptoRate };
}

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '10' } } });
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
if (!(seconds > 0) || !Number.isInteger(concurrency) || concurrency < 1) throw new Error('--seconds > 0 and --concurrency >= 1 required');

/** Runs `op` for `seconds` with `parallel` loops and returns operations per second. */
async function rate(op: () => unknown, parallel: number, span = seconds): Promise<number> {
  let count = 0;
  const started = performance.now();
  const end = started + span * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      await op();
      count += 1;
    }
  };
  await Promise.all(Array.from({ length: parallel }, loop));
  return count / ((performance.now() - started) / 1000);
}

async function measure(op: () => unknown, withConcurrency: boolean, sequential = true): Promise<CryptoRate> {
  await rate(op, withConcurrency ? concurrency : 1, Math.min(0.3, seconds)); // JIT and pool warm-up
  return {
    sequential: sequential ? Math.round(await rate(op, 1)) : null,
    concurrent: withConcurrency ? Math.round(await rate(op, concurrency)) : null,
  };
}

function nodeSignAsync(algorithm: string, data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => sign(algorithm, data, { key, dsaEncoding: 'ieee-p1363' }, (error, signature) => (error ? reject(error) : resolve(signature))));
}

function nodeVerifyAsync(algorithm: string, data: Buffer, key: KeyObject, signature: Buffer): Promise<boolean> {
  return new Promise((resolve, reject) => verify(algorithm, data, { key, dsaEncoding: 'ieee-p1363' }, signature, (error, ok) => (error ? reject(error) : resolve(ok))));
}

// The service's shapes: client key as a KeyObject from its stored JWK (client-keys.ts), the
// signing key as a jose CryptoKey (signing-keys.ts).
const client = es256Key();
const clientKey = createPublicKey({ key: { ...client.publicJwk }, format: 'jwk' });
const now = Math.floor(Date.now() / 1000);
const assertion = signEs256(client, { typ: 'JWT' }, { iss: 'c', sub: 'c', aud: 'http://127.0.0.1/v1/auth/token', jti: randomUUID(), iat: now, exp: now + 300 });
const { privateKey: es512Private, publicKey: es512Public } = await generateKeyPair('ES512');
const claims = {
  iss: 'http://127.0.0.1/v1',
  aud: 'http://127.0.0.1/v1',
  sub: 'c',
  client_id: 'c',
  scope: 'products:read products:list',
  tenant_id: randomUUID(),
  level: 'tenant',
  iat: now,
  exp: now + 900,
};
const issue = (key: CryptoKey) => new SignJWT({ ...claims, jti: randomUUID() }).setProtectedHeader({ alg: 'ES512', kid: 'k', typ: 'at+jwt' }).sign(key);
const accessToken = await issue(es512Private);

// node:crypto equivalents on the same inputs.
const nodeEs512 = generateKeyPairSync('ec', { namedCurve: 'secp521r1' });
const [assertionHead = '', assertionBody = '', assertionSig = ''] = assertion.split('.');
const assertionInput = Buffer.from(`${assertionHead}.${assertionBody}`);
const assertionSignature = Buffer.from(assertionSig, 'base64url');
const [tokenHead = '', tokenBody = ''] = accessToken.split('.');
const tokenInput = Buffer.from(`${tokenHead}.${tokenBody}`);
const nodeTokenSignature = sign('sha512', tokenInput, { key: nodeEs512.privateKey, dsaEncoding: 'ieee-p1363' });

// The service's own choice: the system libcrypto where `auto` takes it, else none to measure.
const { signer: chosen } = await chooseEs512Signer('auto');
const libcrypto = chosen.name === 'libcrypto' ? chosen : undefined;

const report: CryptoLimitReport = {
  seconds,
  concurrency,
  tokenFloor: {
    jose: await measure(async () => {
      await compactVerify(assertion, clientKey, { algorithms: ['ES256'] });
      await issue(es512Private);
    }, true),
    nodeSync: await measure(() => {
      verify('sha256', assertionInput, { key: clientKey, dsaEncoding: 'ieee-p1363' }, assertionSignature);
      sign('sha512', tokenInput, { key: nodeEs512.privateKey, dsaEncoding: 'ieee-p1363' });
    }, false),
    nodeAsync: await measure(
      async () => {
        await nodeVerifyAsync('sha256', assertionInput, clientKey, assertionSignature);
        await nodeSignAsync('sha512', tokenInput, nodeEs512.privateKey);
      },
      true,
      false,
    ),
    libcrypto: libcrypto
      ? await measure(async () => {
          await compactVerify(assertion, clientKey, { algorithms: ['ES256'] });
          await libcrypto.sign(tokenInput, nodeEs512.privateKey);
        }, true)
      : null,
  },
  es512Verify: {
    jose: await measure(() => jwtVerify(accessToken, es512Public, { algorithms: ['ES512'], typ: 'at+jwt', issuer: claims.iss, audience: claims.aud }), true),
    nodeSync: await measure(() => verify('sha512', tokenInput, { key: nodeEs512.publicKey, dsaEncoding: 'ieee-p1363' }, nodeTokenSignature), false),
    nodeAsync: await measure(() => nodeVerifyAsync('sha512', tokenInput, nodeEs512.publicKey, nodeTokenSignature), true, false),
  },
  es256Verify: {
    jose: await measure(() => compactVerify(assertion, clientKey, { algorithms: ['ES256'] }), true),
  },
};
process.stdout.write(`${JSON.stringify(report)}\n`);
