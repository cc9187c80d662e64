import { generateKeyPairSync, verify } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { isP521PrivateKey, signEs512Jws } from '../../../src/security/sign-es512.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k-1', alg: 'ES512', use: 'sig' };
const now = Math.floor(Date.now() / 1000);
const claims = { iss: 'https://api.example/v1', aud: 'https://api.example/v1', sub: 'c', client_id: 'c', scope: 'products:list', tenant_id: 'system', level: 'system', jti: 'j', iat: now, exp: now + 900 };

describe('signEs512Jws', () => {
  it('produces an RFC 9068 token that jose jwtVerify accepts with the public JWKS', async () => {
    const token = await signEs512Jws(claims, privateKey, { kid: 'k-1', typ: 'at+jwt' });
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES512', kid: 'k-1', typ: 'at+jwt' });
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [jwk] }), { algorithms: ['ES512'], typ: 'at+jwt', issuer: claims.iss, audience: claims.aud });
    expect(payload).toEqual(claims);
  });

  it('writes the signature as r ‖ s (IEEE P1363, 132 bytes), which node:crypto verifies in that encoding', async () => {
    const token = await signEs512Jws(claims, privateKey, { kid: 'k-1', typ: 'at+jwt' });
    const [head, body, signature] = token.split('.') as [string, string, string];
    const bytes = Buffer.from(signature, 'base64url');
    expect(bytes).toHaveLength(132);
    expect(verify('sha512', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, bytes)).toBe(true);
  });

  it('encodes non-ASCII payload text as UTF-8 JSON', async () => {
    const token = await signEs512Jws({ ...claims, note: 'Zürich – 東京 🚀' }, privateKey, { kid: 'k-1', typ: 'at+jwt' });
    const { payload } = await compactVerify(token, publicKey, { algorithms: ['ES512'] });
    expect(JSON.parse(new TextDecoder().decode(payload)).note).toBe('Zürich – 東京 🚀');
  });

  it('signs many tokens concurrently, each valid and distinct (ECDSA is randomised)', async () => {
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => signEs512Jws({ ...claims, jti: `j-${i}` }, privateKey, { kid: 'k-1', typ: 'at+jwt' })));
    expect(new Set(tokens).size).toBe(20);
    for (const token of tokens) await expect(compactVerify(token, publicKey, { algorithms: ['ES512'] })).resolves.toBeDefined();
  });

  it('refuses any key but a P-521 private key', async () => {
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const ed = generateKeyPairSync('ed25519').privateKey;
    for (const key of [p256, ed, publicKey]) {
      expect(isP521PrivateKey(key)).toBe(false);
      await expect(signEs512Jws(claims, key, { kid: 'k', typ: 'at+jwt' })).rejects.toThrow(/P-521 private key/);
    }
    expect(isP521PrivateKey(privateKey)).toBe(true);
  });
});
