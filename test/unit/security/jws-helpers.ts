/**
 * Test helpers that build compact JWS by hand, so tests can produce exactly the bytes
 * they need (duplicate members, odd headers, broken signatures) that jose would refuse to
 * produce.
 */
import { constants, sign, type KeyObject } from 'node:crypto';

/** base64url of a string's UTF-8 bytes, or of raw bytes. */
export function b64url(value: string | Uint8Array): string {
  return Buffer.from(value).toString('base64url');
}

const hashByAlg: Readonly<Record<string, string | null>> = {
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
  RS256: 'sha256',
  PS256: 'sha256',
  EdDSA: null,
};

/**
 * Signs `header` and `payload` (objects, or raw JSON text used verbatim) with `key`,
 * hashing as `hashAlg` says (defaults to the header's `alg`).
 */
export function signCompact(header: Record<string, unknown> | string, payload: Record<string, unknown> | string, key: KeyObject, hashAlg?: string): string {
  const headerText = typeof header === 'string' ? header : JSON.stringify(header);
  const payloadText = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const input = `${b64url(headerText)}.${b64url(payloadText)}`;
  const alg = hashAlg ?? (JSON.parse(headerText) as { alg: string }).alg;
  const hash = hashByAlg[alg];
  if (hash === undefined) throw new Error(`test helper cannot sign ${alg}`);
  const signature =
    key.asymmetricKeyType === 'ec'
      ? sign(hash, Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
      : alg === 'PS256'
        ? sign(hash, Buffer.from(input), { key, padding: constants.RSA_PKCS1_PSS_PADDING })
        : sign(hash, Buffer.from(input), key);
  return `${input}.${b64url(signature)}`;
}

/** Replaces the signature segment of a compact JWS. */
export function withSignature(token: string, signature: Uint8Array | string): string {
  const [header, payload] = token.split('.');
  return `${header}.${payload}.${typeof signature === 'string' ? signature : b64url(signature)}`;
}
