import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crud, listeningService } from '../support/listening-service.js';
import type { ListeningService } from '../support/listening-service.js';
import { onlyJson, runCli } from '../support/run-cli.js';

const slow = 60_000;

// A story: keygen writes the key pair the later steps register and sign with; each step is a
// CLI run (a second or more), so they share it and keep their order under `--sequence.shuffle`.
describe('cli keygen and cli token', { shuffle: false }, () => {
  let dir: string;
  let env: Record<string, string>;
  let service: ListeningService;
  let clientId = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-cli-client-'));
    env = { DATA_DIR: join(dir, 'data') };
    service = await listeningService();
  });
  afterAll(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'keygen writes a P-256 PKCS8 private key (mode 0600) and its SPKI public key',
    async () => {
      const run = await runCli(['keygen', '--out', join(dir, 'client')], env);
      expect(run.code, run.stderr).toBe(0);
      const out = onlyJson(run);
      expect(out).toMatchObject({ private_key: join(dir, 'client.key'), public_key: join(dir, 'client.pub'), alg: 'ES256', kid: expect.any(String) });
      expect(statSync(join(dir, 'client.key')).mode & 0o777).toBe(0o600);
      const privatePem = readFileSync(join(dir, 'client.key'), 'utf8');
      expect(privatePem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      const key = createPrivateKey(privatePem);
      expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
      expect(createPublicKey(key).export({ type: 'spki', format: 'pem' })).toBe(readFileSync(join(dir, 'client.pub'), 'utf8'));

      // The kid printed is the one the service gives the key by default.
      const tenantId = await service.h.tenant('CLI tenant');
      const created = await service.h.request({
        method: 'POST',
        url: '/v1/api-clients',
        token: await service.h.bearer(null, ['api-clients:create', ...crud('products')]),
        headers: { 'x-tenant-id': tenantId },
        body: { name: 'cli client', capabilities: crud('products'), public_key: readFileSync(join(dir, 'client.pub'), 'utf8') },
      });
      expect(created.statusCode, created.body).toBe(201);
      const record = created.json() as { _id: string; keys: { kid: string }[] };
      expect(record.keys[0]?.kid).toBe(out.kid);
      clientId = record._id;
    },
    slow,
  );

  it(
    'keygen refuses to overwrite existing keys and needs --out',
    async () => {
      const again = await runCli(['keygen', '--out', join(dir, 'client')], env);
      expect(again.code).toBe(1);
      expect(onlyJson(again)).toMatchObject({ error: 'validation_failed', detail: expect.stringContaining('already exists') });
      const missing = await runCli(['keygen'], env);
      expect(missing.code).toBe(2);
      expect(onlyJson(missing)).toMatchObject({ error: 'usage', errors: [{ field: '--out', message: expect.any(String) }] });
    },
    slow,
  );

  it(
    'token prints an access token from the service at PUBLIC_URL, with the scope asked for',
    async () => {
      const run = await runCli(['token', '--client', clientId, '--key', join(dir, 'client.key'), '--scope', 'products:list products:read'], { ...env, PUBLIC_URL: service.origin });
      expect(run.code, run.stderr).toBe(0);
      const out = onlyJson(run);
      expect(out).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'products:list products:read' });
      const listed = await fetch(`${service.origin}/v1/products`, { headers: { authorization: `Bearer ${String(out.access_token)}` } });
      expect(listed.status).toBe(200);
    },
    slow,
  );

  it(
    'token --dpop binds the token to the key and prints its thumbprint; --url overrides PUBLIC_URL',
    async () => {
      const run = await runCli(['token', '--client', clientId, '--key', join(dir, 'client.key'), '--dpop', '--url', service.origin], { ...env, PUBLIC_URL: 'http://127.0.0.1:9' });
      expect(run.code, run.stderr).toBe(0);
      const out = onlyJson(run);
      expect(out).toMatchObject({ token_type: 'DPoP', dpop_jkt: expect.any(String) });
      expect(decodeJwt(String(out.access_token)).cnf).toEqual({ jkt: out.dpop_jkt });
    },
    slow,
  );

  it(
    'token reports a refused client and a missing option as one JSON error',
    async () => {
      const refused = await runCli(['token', '--client', 'no-such-client', '--key', join(dir, 'client.key'), '--url', service.origin], env);
      expect(refused.code).toBe(1);
      expect(onlyJson(refused)).toMatchObject({ error: 'failed', detail: expect.stringContaining('invalid_client') });
      const missing = await runCli(['token', '--key', join(dir, 'client.key')], env);
      expect(missing.code).toBe(2);
      expect(onlyJson(missing)).toMatchObject({ error: 'usage', errors: [{ field: '--client', message: 'is required' }] });
    },
    slow,
  );
});
