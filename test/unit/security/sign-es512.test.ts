import { generateKeyPairSync, verify } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { nodeEs512Signer } from '../../../src/security/es512-signer.js';
import { chooseEs512Signer } from '../../../src/security/libcrypto-es512-signer.js';
import { isP521PrivateKey, signEs512Jws } from '../../../src/security/sign-es512.js';
import { autoEs512Choice, es512Signers, systemLibcryptoPresent } from '../../support/es512-signers.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k-1', alg: 'ES512', use: 'sig' };
const now = Math.floor(Date.now() / 1000);
const claims = {
  iss: 'https://api.example/v1',
  aud: 'https://api.example/v1',
  sub: 'c',
  client_id: 'c',
  scope: 'products:list',
  tenant_id: 'system',
  level: 'system',
  jti: 'j',
  iat: now,
  exp: now + 900,
};

describe('the signer ES512_SIGNER=auto chooses', () => {
  it('is the system libcrypto wherever libcrypto.so.3 is installed and qualifies (a silent fallback would cost ~7× per signature); node:crypto, with the reason, where it is not', () => {
    const { signer, fallbackReason } = autoEs512Choice;
    if (signer.name === 'libcrypto') {
      expect(fallbackReason).toBeUndefined();
      expect(signer.description).toMatch(/^system libcrypto \(OpenSSL 3\.\d+\.\d+.*constant-time ecp_nistp521\)$/);
    } else if (systemLibcryptoPresent()) {
      // Installed but not usable: only a library that does not qualify may be refused, never a bug of ours.
      expect(fallbackReason).toMatch(/older than OpenSSL 3\.0|does not use the constant-time ecp_nistp521|does not know P-521/);
    } else {
      expect(signer).toBe(nodeEs512Signer);
      expect(fallbackReason).toMatch(/^cannot load libcrypto\.so\.3: /);
    }
  });

  it('falls back to node:crypto, with the reason, when the library cannot be loaded; libcrypto mode refuses instead', async () => {
    const choice = await chooseEs512Signer('auto', 'libcrypto-that-does-not-exist.so.3');
    expect(choice.signer).toBe(nodeEs512Signer);
    expect(choice.fallbackReason).toMatch(/cannot load libcrypto-that-does-not-exist\.so\.3/);
    await expect(chooseEs512Signer('libcrypto', 'libcrypto-that-does-not-exist.so.3')).rejects.toThrow(/ES512_SIGNER=libcrypto, but the system libcrypto cannot be used: cannot load/);
    expect((await chooseEs512Signer('node')).signer).toBe(nodeEs512Signer);
  });
});

describe.each(es512Signers)('signEs512Jws with the $name signer', (signer) => {
  it('produces an RFC 9068 token that jose jwtVerify accepts with the public JWKS', async () => {
    const token = await signEs512Jws(claims, privateKey, { kid: 'k-1', typ: 'at+jwt' }, signer);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES512', kid: 'k-1', typ: 'at+jwt' });
    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: [jwk] }), { algorithms: ['ES512'], typ: 'at+jwt', issuer: claims.iss, audience: claims.aud });
    expect(payload).toEqual(claims);
  });

  it('writes the signature as r ‖ s (IEEE P1363, 132 bytes), which node:crypto verifies in that encoding', async () => {
    const token = await signEs512Jws(claims, privateKey, { kid: 'k-1', typ: 'at+jwt' }, signer);
    const [head, body, signature] = token.split('.') as [string, string, string];
    const bytes = Buffer.from(signature, 'base64url');
    expect(bytes).toHaveLength(132);
    expect(verify('sha512', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, bytes)).toBe(true);
  });

  it('encodes non-ASCII payload text as UTF-8 JSON', async () => {
    const token = await signEs512Jws({ ...claims, note: 'Zürich – 東京 🚀' }, privateKey, { kid: 'k-1', typ: 'at+jwt' }, signer);
    const { payload } = await compactVerify(token, publicKey, { algorithms: ['ES512'] });
    expect(JSON.parse(new TextDecoder().decode(payload)).note).toBe('Zürich – 東京 🚀');
  });

  it('signs many tokens concurrently (more than are let onto the pool at once), each valid and distinct', async () => {
    // 400 also crosses the libcrypto signer's 32-in-flight queue and 1 in ~128 signatures
    // has a short r or s, so the DER → P1363 padding is exercised on real output.
    const tokens = await Promise.all(Array.from({ length: 400 }, (_, i) => signEs512Jws({ ...claims, jti: `j-${i}` }, privateKey, { kid: 'k-1', typ: 'at+jwt' }, signer)));
    expect(new Set(tokens).size).toBe(400);
    for (const token of tokens) {
      const [head, body, signature] = token.split('.') as [string, string, string];
      expect(verify('sha512', Buffer.from(`${head}.${body}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))).toBe(true);
    }
    for (const token of tokens.slice(0, 20)) await expect(compactVerify(token, publicKey, { algorithms: ['ES512'] })).resolves.toBeDefined();
  });

  it('signs on the libuv pool: the event loop turns while 200 signatures are being computed', async () => {
    await signer.sign(Buffer.from('warm-up'), privateKey);
    let settled = 0;
    const all = Promise.all(Array.from({ length: 200 }, () => signer.sign(Buffer.from('x'), privateKey).then(() => settled++)));
    // Work done on the main thread would settle its promise before the next turn.
    const atNextTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(settled)));
    await all;
    expect(atNextTurn).toBeLessThan(200);
    expect(settled).toBe(200);
  });

  it('signs with several keys at once, each token verifying with its own key only', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-521' });
    const [a, b] = await Promise.all([signEs512Jws(claims, privateKey, { kid: 'a', typ: 'at+jwt' }, signer), signEs512Jws(claims, other.privateKey, { kid: 'b', typ: 'at+jwt' }, signer)]);
    await expect(compactVerify(a, publicKey)).resolves.toBeDefined();
    await expect(compactVerify(b, other.publicKey)).resolves.toBeDefined();
    await expect(compactVerify(b, publicKey)).rejects.toThrow(/signature verification failed/);
  });

  it('refuses any key but a P-521 private key', async () => {
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const ed = generateKeyPairSync('ed25519').privateKey;
    for (const key of [p256, ed, publicKey]) {
      expect(isP521PrivateKey(key)).toBe(false);
      await expect(signEs512Jws(claims, key, { kid: 'k', typ: 'at+jwt' }, signer)).rejects.toThrow(/P-521 private key/);
    }
    expect(isP521PrivateKey(privateKey)).toBe(true);
  });
});
