import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, CompactSign, compactVerify, exportJWK, generateKeyPair } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signEs512Jws } from '../../../src/security/sign-es512.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';

const now = 1_800_000_000;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'signing-keys-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function privateJwk(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const { privateKey } = await generateKeyPair('ES512', { extractable: true });
  return { ...(await exportJWK(privateKey)), ...extra };
}

async function roundTrip(store: SigningKeyStore, at: number): Promise<string> {
  const { kid, privateKey } = store.current(at);
  const jws = await new CompactSign(new TextEncoder().encode('x')).setProtectedHeader({ alg: 'ES512', kid }).sign(privateKey);
  const key = store.verificationKey(kid);
  if (!key) throw new Error('no verification key');
  await compactVerify(jws, key, { algorithms: ['ES512'] });
  // The node:crypto copy that the store's signer signs access tokens with is the same key.
  const token = await signEs512Jws({ x: 1 }, store.current(at).signingKey, { kid, typ: 'at+jwt' }, store.signer);
  await compactVerify(token, key, { algorithms: ['ES512'] });
  return kid;
}

describe('SigningKeyStore with a file', () => {
  it('generates a P-521 key in a new 0600 file (creating the directory) and reloads it', async () => {
    const file = join(dir, 'nested', 'keys', 'signing-keys.json');
    const store = await SigningKeyStore.open({ file }, now);
    const kid = await roundTrip(store, now);

    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { keys: Record<string, unknown>[] };
    expect(saved.keys).toHaveLength(1);
    expect(saved.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-521', kid, alg: 'ES512', published_at: now });
    expect(typeof saved.keys[0]?.d).toBe('string');
    expect(kid).toBe(await calculateJwkThumbprint({ kty: 'EC', crv: 'P-521', x: saved.keys[0]?.x as string, y: saved.keys[0]?.y as string }));
    expect(await readdir(join(dir, 'nested', 'keys'))).toEqual(['signing-keys.json']);

    const reloaded = await SigningKeyStore.open({ file }, now + 10);
    expect(reloaded.current(now + 10).kid).toBe(kid);
    expect(reloaded.publicJwks()).toEqual(store.publicJwks());
  });

  it('two instances opening a missing file at once end up with the same key', async () => {
    const file = join(dir, 'keys.json');
    const [a, b] = await Promise.all([SigningKeyStore.open({ file }, now), SigningKeyStore.open({ file }, now)]);
    expect(a.current(now).kid).toBe(b.current(now).kid);
  });

  it('publishes a rotated key before it signs, keeps the old one, and persists both', async () => {
    const file = join(dir, 'keys.json');
    const options = { file, publishDelaySeconds: 600, retentionSeconds: 1800 };
    const store = await SigningKeyStore.open(options, now);
    const first = store.current(now).kid;

    const second = await store.rotate(now + 100);
    expect(second).not.toBe(first);
    expect(store.publicJwks().keys.map((key) => key.kid)).toEqual([first, second]);
    expect(store.current(now + 100).kid).toBe(first);
    expect(store.current(now + 699).kid).toBe(first);
    expect(await roundTrip(store, now + 700)).toBe(second);
    expect(store.verificationKey(first)).toBeDefined();
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const reloaded = await SigningKeyStore.open(options, now + 700);
    expect(reloaded.current(now + 699).kid).toBe(first);
    expect(reloaded.current(now + 700).kid).toBe(second);
  });

  it('drops keys retired for longer than the retention on the next rotation', async () => {
    const options = { file: join(dir, 'keys.json'), publishDelaySeconds: 0, retentionSeconds: 1800 };
    const store = await SigningKeyStore.open(options, now);
    const first = store.current(now).kid;
    const second = await store.rotate(now + 100);
    // `first` stopped signing at now + 100; still within retention at now + 1899.
    const third = await store.rotate(now + 1899);
    expect(store.publicJwks().keys.map((key) => key.kid)).toEqual([first, second, third]);
    const fourth = await store.rotate(now + 1900);
    expect(store.publicJwks().keys.map((key) => key.kid)).toEqual([second, third, fourth]);
    expect(store.verificationKey(first)).toBeUndefined();
  });

  it('serialises overlapping rotations so no key is lost from the file', async () => {
    const file = join(dir, 'keys.json');
    const store = await SigningKeyStore.open({ file }, now);
    const added = await Promise.all([store.rotate(now + 1), store.rotate(now + 1), store.rotate(now + 1)]);
    const reloaded = await SigningKeyStore.open({ file }, now + 1);
    expect(reloaded.publicJwks().keys.map((key) => key.kid)).toEqual([store.publicJwks().keys[0]?.kid, ...added]);
  });

  it('publishes only public members plus kid, alg and use', async () => {
    const store = await SigningKeyStore.open({ file: join(dir, 'keys.json') }, now);
    await store.rotate(now + 1);
    for (const key of store.publicJwks().keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
      expect(key).toMatchObject({ kty: 'EC', crv: 'P-521', alg: 'ES512', use: 'sig' });
    }
    expect(JSON.stringify(store.publicJwks())).not.toMatch(/"d"|published_at/);
  });
});

describe('SigningKeyStore with an operator-supplied JWKS', () => {
  it('loads the keys, signs with the last one and refuses to rotate', async () => {
    const older = await privateJwk({ kid: 'older' });
    const newer = await privateJwk({ kid: 'newer' });
    const store = await SigningKeyStore.open({ jwks: JSON.stringify({ keys: [older, newer] }) }, now);
    expect(await roundTrip(store, now)).toBe('newer');
    expect(store.publicJwks().keys.map((key) => key.kid)).toEqual(['older', 'newer']);
    await expect(store.rotate(now)).rejects.toThrow('read-only');
  });

  it('derives the kid from the thumbprint when absent', async () => {
    const jwk = await privateJwk();
    const store = await SigningKeyStore.open({ jwks: JSON.stringify({ keys: [jwk] }) }, now);
    expect(store.current(now).kid).toBe(await calculateJwkThumbprint({ kty: 'EC', crv: 'P-521', x: jwk.x as string, y: jwk.y as string }));
  });

  it.each([
    ['invalid JSON', async () => '{', 'not valid JSON'],
    ['an empty set', async () => '{"keys":[]}', 'at least one key'],
    ['a public key', async () => JSON.stringify({ keys: [{ ...(await privateJwk()), d: undefined }] }), 'not a private key'],
    ['a P-256 key', async () => JSON.stringify({ keys: [{ ...(await privateJwk()), crv: 'P-256' }] }), 'not an EC P-521 key'],
    ['another alg', async () => JSON.stringify({ keys: [await privateJwk({ alg: 'ES256' })] }), 'alg ES512'],
    ['duplicate kids', async () => JSON.stringify({ keys: [await privateJwk({ kid: 'a' }), await privateJwk({ kid: 'a' })] }), 'duplicate kid'],
    ['d not matching x/y', async () => JSON.stringify({ keys: [{ ...(await privateJwk()), d: (await privateJwk()).d }] }), 'not a valid P-521 key'],
  ])('refuses %s', async (_name, make, message) => {
    await expect(SigningKeyStore.open({ jwks: await make() }, now)).rejects.toThrow(message);
  });

  it('reads an existing file written by an operator', async () => {
    const file = join(dir, 'keys.json');
    await writeFile(file, JSON.stringify({ keys: [await privateJwk({ kid: 'ops' })] }), { mode: 0o600 });
    expect((await SigningKeyStore.open({ file }, now)).current(now).kid).toBe('ops');
  });
});
