import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { AccessTokenVerifier, issueAccessToken } from '../../../src/security/access-token.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { es512Signers } from '../../support/es512-signers.js';

describe('signing keys rotated by another process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
  const file = join(dir, 'signing-keys.json');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are published on reload and sign only after the publish delay', async () => {
    const now = 1_800_000_000;
    const server = await SigningKeyStore.open({ file, publishDelaySeconds: 360 }, now);
    const first = server.current(now).kid;
    expect(await server.reload()).toBe(false);

    const operator = await SigningKeyStore.open({ file, publishDelaySeconds: 360 }, now + 10);
    const added = await operator.rotate(now + 10);

    expect(await server.reload()).toBe(true);
    expect(server.publicJwks().keys.map((k) => k.kid)).toEqual([first, added]);
    expect(server.current(now + 10 + 359).kid).toBe(first);
    expect(server.current(now + 10 + 360).kid).toBe(added);
    expect(server.verificationKey(first)).toBeDefined();
  });

  it.each(es512Signers)('the $name signer signs with the reloaded key after the delay; tokens of both keys verify with jose and the service verifier', async (signer) => {
    const now = 1_800_000_000;
    const keysFile = join(dir, `rotation-${signer.name}.json`);
    const server = await SigningKeyStore.open({ file: keysFile, publishDelaySeconds: 360, signer }, now);
    expect(server.signer).toBe(signer);
    const issuer = 'https://api.example/v1';
    const grant = { issuer, audience: issuer, subject: 'c', clientId: 'c', scope: 'products:list', tenantId: 't', level: 'tenant' as const };
    const before = await issueAccessToken(server, grant, now, 900);

    const added = await (await SigningKeyStore.open({ file: keysFile, publishDelaySeconds: 360 }, now + 10)).rotate(now + 10);
    expect(await server.reload()).toBe(true);
    const during = await issueAccessToken(server, grant, now + 10 + 359, 900);
    const after = await issueAccessToken(server, grant, now + 10 + 360, 900);
    expect(decodeProtectedHeader(during.token).kid).toBe(decodeProtectedHeader(before.token).kid);
    expect(decodeProtectedHeader(after.token).kid).toBe(added);

    const jwks = createLocalJWKSet(server.publicJwks() as unknown as Parameters<typeof createLocalJWKSet>[0]);
    const verifier = new AccessTokenVerifier(server, { issuer, audience: issuer });
    for (const { token, claims } of [before, during, after]) {
      await expect(jwtVerify(token, jwks, { algorithms: ['ES512'], typ: 'at+jwt', issuer, audience: issuer, currentDate: new Date((claims.iat + 1) * 1000) })).resolves.toBeDefined();
      await expect(verifier.verify(token, claims.iat + 1)).resolves.toMatchObject({ jti: claims.jti });
    }
  });
});
