import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { clientKeyFromJwk, importClientPublicKey, PublicKeyError } from '../../../src/security/public-key.js';
import { signCompact } from './jws-helpers.js';

function spki(key: KeyObject): string {
  return key.export({ type: 'spki', format: 'pem' }).toString();
}

// A self-signed P-256 certificate: it contains a valid key, but certificates are refused.
const certificate = `-----BEGIN CERTIFICATE-----
MIIBcjCCARmgAwIBAgIUSgC20S9SIAPTzL4n7lXKcS6+KQwwCgYIKoZIzj0EAwIw
DzENMAsGA1UEAwwEdGVzdDAeFw0yNjExMjIwNDQ5NThaFw0zNjExMTkwNDQ5NTha
MA8xDTALBgNVBAMMBHRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQIMhk2
AtIPnj3Ulhk4I2cqga8+qdXQoDnT6jvO3dwmXVyJ+rZheJ7FAVLUtLVOX9sPb7k/
7QF7F9obHSovjNDpo1MwUTAdBgNVHQ4EFgQU43E82qGM1jEoVnxFR+PTb8v6MkMw
HwYDVR0jBBgwFoAU43E82qGM1jEoVnxFR+PTb8v6MkMwDwYDVR0TAQH/BAUwAwEB
/zAKBggqhkjOPQQDAgNHADBEAiAHjU5qave+FO9VZ7Jz5a4SSYCX0vm2nnqI6bOz
0E9WdAIgH3QTUsMPQVeq4awb+up9YP5i9EWg6VEaFC+nx+giFPE=
-----END CERTIFICATE-----
`;

describe('importClientPublicKey', () => {
  it.each([
    ['P-256', 'ES256'],
    ['P-384', 'ES384'],
    ['P-521', 'ES512'],
  ] as const)('accepts an SPKI PEM on %s as %s', async (namedCurve, alg) => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve });
    const imported = await importClientPublicKey(spki(publicKey));
    expect(imported.alg).toBe(alg);
    expect(Object.keys(imported.jwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
    expect(imported.jwk.crv).toBe(namedCurve);
    expect(imported.thumbprint).toBe(await calculateJwkThumbprint(imported.jwk, 'sha256'));
    expect(imported.thumbprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const jws = signCompact({ alg }, { hello: 'world' }, privateKey);
    await expect(compactVerify(jws, imported.key, { algorithms: [alg] })).resolves.toBeDefined();
  });

  it('tolerates CRLF line endings and surrounding whitespace', async () => {
    const pem = spki(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey);
    await expect(importClientPublicKey(`\n  ${pem.replace(/\n/g, '\r\n')}  \n`)).resolves.toMatchObject({ alg: 'ES256' });
  });

  it.each([
    ['an RSA key', () => spki(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey), 'type "rsa" is not allowed'],
    ['an Ed25519 key', () => spki(generateKeyPairSync('ed25519').publicKey), 'type "ed25519" is not allowed'],
    ['a secp256k1 key', () => spki(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey), 'curve "secp256k1" is not allowed'],
    ['a PKCS#8 private key', () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'single SPKI PEM block'],
    ['a SEC1 private key', () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString(), 'single SPKI PEM block'],
    ['a certificate', () => certificate, 'single SPKI PEM block'],
    ['two keys', () => spki(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey).repeat(2), 'single SPKI PEM block'],
    ['garbage', () => 'hello', 'single SPKI PEM block'],
    ['a PEM with a broken body', () => '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n', 'not a valid SPKI structure'],
    ['a huge string', () => 'A'.repeat(10_000), 'at most 4096'],
  ])('refuses %s', async (_name, make, message) => {
    const error = await importClientPublicKey(make()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PublicKeyError);
    expect((error as PublicKeyError).code).toBe('invalid_public_key');
    expect((error as Error).message).toContain(message);
  });
});

describe('clientKeyFromJwk', () => {
  it('re-creates a usable key from the stored JWK', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const { jwk, alg } = await importClientPublicKey(spki(publicKey));
    const key = clientKeyFromJwk(JSON.parse(JSON.stringify(jwk)), alg);
    await expect(compactVerify(signCompact({ alg }, { a: 1 }, privateKey), key, { algorithms: [alg] })).resolves.toBeDefined();
  });

  it('refuses a JWK that does not fit the algorithm, a private JWK, or a broken one', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { jwk } = await importClientPublicKey(spki(publicKey));
    expect(() => clientKeyFromJwk(jwk, 'ES384')).toThrow(PublicKeyError);
    expect(() => clientKeyFromJwk(privateKey.export({ format: 'jwk' }), 'ES256')).toThrow('private key');
    expect(() => clientKeyFromJwk({ ...jwk, x: 'AAAA' }, 'ES256')).toThrow('not a valid EC public key');
    expect(() => clientKeyFromJwk({ kty: 'EC', crv: 'P-256' }, 'ES256')).toThrow('lacks x or y');
  });
});
