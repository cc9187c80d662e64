import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TarWriter } from '../../cli/tar-file.js';
import { lockFileName } from '../../src/db/data-dir-lock.js';
import { freePort } from '../support/free-port.js';
import { clientKeyPair, signAssertion } from '../support/keys.js';
import { productBody } from '../support/resource-bodies.js';
import { onlyJson, runCli } from '../support/run-cli.js';
import { startServer, until } from '../support/server-process.js';
import type { ServerProcess } from '../support/server-process.js';

// Real processes: servers and CLI runs start Node and tsx (seconds each).
const slow = 180_000;
// Both servers answer as the same public URL: tokens name it as issuer and audience.
const publicUrl = 'http://booking.test';

async function stop(server: ServerProcess): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await server.exited;
}

async function started(dataDir: string): Promise<ServerProcess> {
  const server = startServer(await freePort(), { DATA_DIR: dataDir, PUBLIC_URL: publicUrl, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn' });
  await server.waitReady();
  return server;
}

function call(server: ServerProcess, method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${server.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('backup and restore of the SQLite storage while the service writes', () => {
  let dir: string;
  const servers: ServerProcess[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'booking-backup-'));
  });
  afterAll(async () => {
    await Promise.all(servers.map(stop));
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'a backup taken under write load restores every acknowledged write, the signing keys and the erasures',
    async () => {
      const live = join(dir, 'live');
      const source = await started(live);
      servers.push(source);

      // A client made by the operator while the service runs.
      const key = clientKeyPair();
      writeFileSync(join(dir, 'client.pem'), key.publicPem);
      const created = await runCli(
        [
          'client',
          'create',
          '--name',
          'Loader',
          '--new-tenant',
          'Backups',
          '--capabilities',
          'products:create products:read users:create users:erase users:read:email users:write:email audit-logs:list',
          '--public-key',
          join(dir, 'client.pem'),
        ],
        { DATA_DIR: live },
      );
      expect(created.code, created.stdout + created.stderr).toBe(0);
      const client = onlyJson(created);
      const form = new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: String(client.client_id),
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await signAssertion(key, String(client.client_id), `${publicUrl}/v1/auth/token`, { kid: String(client.kid) }),
      });
      const issued = await fetch(`${source.origin}/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
      expect(issued.status).toBe(200);
      const token = ((await issued.json()) as { access_token: string }).access_token;
      const tokenKid = (JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid: string }).kid;

      // One user kept, one erased before the backup.
      const keep = (await (await call(source, 'POST', '/v1/users', token, { email: 'keep.backup@example.com' })).json()) as { _id: string };
      const gone = (await (await call(source, 'POST', '/v1/users', token, { email: 'gone.backup@example.com', first_name: 'Gone' })).json()) as { _id: string };
      expect((await call(source, 'POST', `/v1/users/${gone._id}/erase`, token)).status).toBe(200);

      // Write load: four writers creating products until told to stop.
      const acknowledged: { id: string }[] = [];
      let loading = true;
      const writer = async () => {
        for (let i = 0; loading; i += 1) {
          const response = await call(source, 'POST', '/v1/products', token, { ...productBody, name: `Load ${i}` });
          if (response.status === 201) acknowledged.push({ id: ((await response.json()) as { _id: string })._id });
          else await response.body?.cancel();
        }
      };
      const writers = [writer(), writer(), writer(), writer()];
      await until(() => acknowledged.length >= 20, '20 acknowledged writes', 30_000);
      // Counted, not timed: the writes acknowledged before the backup began are the first
      // `acknowledgedAtStart` (a millisecond clock would make one that lands in the same
      // millisecond neither before nor after).
      const acknowledgedAtStart = acknowledged.length;
      const archive = join(dir, 'backup.tar');
      const run = await runCli(['backup', '--to', archive], { DATA_DIR: live });
      const writtenDuringBackup = acknowledged.length - acknowledgedAtStart;
      loading = false;
      await Promise.all(writers);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const report = onlyJson(run);
      expect(report).toMatchObject({ backup: archive, schema_version: expect.any(String), keys: { signing_keys: 'included', data_key: 'included' } });
      expect(Object.keys(report.files as object).sort()).toEqual(['booking.sqlite', 'data-key', 'signing-keys.json']);
      // The service kept answering writes while the copy was made.
      expect(writtenDuringBackup).toBeGreaterThan(0);

      // The running service's data is never overwritten, not even with --force.
      for (const args of [
        ['restore', '--from', archive],
        ['restore', '--from', archive, '--force'],
      ]) {
        const refused = await runCli(args, { DATA_DIR: live });
        expect(refused.code).toBe(1);
        expect(onlyJson(refused)).toMatchObject({ error: 'data_dir_in_use', holder: { purpose: 'server', pid: source.child.pid } });
      }

      const restoredDir = join(dir, 'restored');
      const restored = await runCli(['restore', '--from', archive], { DATA_DIR: restoredDir });
      expect(restored.code, restored.stdout + restored.stderr).toBe(0);
      // Every table as backed up, except the running server's job leases: run-time state, left behind.
      const backedUpTables = report.tables as Record<string, number>;
      expect(onlyJson(restored)).toMatchObject({
        data_dir: restoredDir,
        schema_version: report.schema_version,
        tables: { ...backedUpTables, job_leases: 0 },
        not_restored: { job_leases: backedUpTables.job_leases },
      });

      const copy = await started(restoredDir);
      servers.push(copy);
      // The token issued by the first service verifies at the restored one: same signing keys.
      const jwks = (await (await fetch(`${copy.origin}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
      expect(jwks.keys.map((k) => k.kid)).toContain(tokenKid);
      const before = acknowledged.slice(0, acknowledgedAtStart);
      expect(before.length).toBeGreaterThanOrEqual(20);
      for (let i = 0; i < before.length; i += 10) {
        const statuses = await Promise.all(before.slice(i, i + 10).map(async ({ id }) => (await call(copy, 'GET', `/v1/products/${id}`, token)).status));
        expect(statuses).toEqual(statuses.map(() => 200));
      }
      // Subject keys travel in the database: the kept user's audit values read, the erased one's stay unreadable.
      const keptTrail = (await (await call(copy, 'GET', `/v1/audit-logs?record_id=${keep._id}&action=create`, token)).json()) as { items: { new_values: Record<string, unknown> }[] };
      expect(keptTrail.items[0]?.new_values).toMatchObject({ email: 'keep.backup@example.com' });
      const goneTrail = await call(copy, 'GET', `/v1/audit-logs?record_id=${gone._id}&per_page=100`, token);
      const goneText = await goneTrail.text();
      expect(goneTrail.status).toBe(200);
      expect((JSON.parse(goneText) as { items: unknown[] }).items.length).toBeGreaterThan(0);
      expect(goneText).not.toContain('gone.backup@example.com');
      expect(goneText).toContain('[erased]');

      // Stopped services release their data directories; a stopped one may be replaced with --force.
      await stop(copy);
      await stop(source);
      expect(existsSync(join(live, lockFileName))).toBe(false);
      const refused = await runCli(['restore', '--from', archive], { DATA_DIR: restoredDir });
      expect(onlyJson(refused)).toMatchObject({ error: 'target_not_empty' });
      const forced = await runCli(['restore', '--from', archive, '--force'], { DATA_DIR: restoredDir });
      expect(forced.code, forced.stdout).toBe(0);
      expect(onlyJson(forced).replaced).toEqual(expect.arrayContaining(['booking.sqlite', 'data-key', 'signing-keys.json']));
    },
    slow,
  );

  it(
    'refuses a damaged archive and bad arguments with one JSON error each',
    async () => {
      const damaged = join(dir, 'damaged.tar');
      writeFileSync(damaged, Buffer.alloc(2048, 7));
      // A crafted archive whose manifest names a path outside DATA_DIR (checksum and all).
      const crafted = join(dir, 'crafted.tar');
      const evil = Buffer.from('evil');
      const fd = openSync(crafted, 'w');
      const tar = new TarWriter(fd, 0);
      tar.addBuffer('../evil', evil);
      tar.addBuffer(
        'manifest.json',
        Buffer.from(
          JSON.stringify({
            format: 'booking-sqlite-backup',
            version: 1,
            files: { '../evil': { size: 4, sha256: createHash('sha256').update(evil).digest('hex') } },
            keys: { data_key: 'absent', data_key_sha256: null },
            tables: {},
          }),
        ),
      );
      tar.finish();
      closeSync(fd);
      const runs = await Promise.all([
        runCli(['restore', '--from', crafted], { DATA_DIR: join(dir, 'nowhere') }),
        runCli(['restore', '--from', damaged], { DATA_DIR: join(dir, 'nowhere') }),
        runCli(['restore'], { DATA_DIR: join(dir, 'nowhere') }),
        runCli(['backup', '--to', join(dir, 'x.tar')], { DATA_DIR: join(dir, 'empty') }),
        runCli(['backup', '--to', join(dir, 'x.tar')], { DATA_DIR: join(dir, 'empty'), DATABASE_URL: 'postgres://u@127.0.0.1:1/db' }),
      ]);
      expect(runs.map((r) => [r.code, onlyJson(r).error])).toEqual([
        [1, 'invalid_backup'],
        [1, 'invalid_backup'],
        [2, 'usage'],
        [1, 'not_found'],
        [1, 'not_sqlite'],
      ]);
      for (const r of runs) expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
      expect(String(runs.map((r) => onlyJson(r).detail)[0])).toContain('../evil');
      expect(existsSync(join(dir, 'nowhere'))).toBe(false);
      expect(existsSync(join(dir, 'evil'))).toBe(false);
    },
    slow,
  );
});

describe('restore leaves the background job leases of the backed-up service behind', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'booking-backup-leases-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'a lease in the backup does not reach the restored database, and the report says so',
    async () => {
      const live = join(dir, 'live');
      const created = await runCli(['tenant', 'create', '--name', 'Leased'], { DATA_DIR: live });
      expect(created.code, created.stdout).toBe(0);
      // The lease a running service holds: restored, it would make the new one skip its next run.
      const source = new BetterSqlite3(join(live, 'booking.sqlite'));
      try {
        source.prepare('insert into job_leases (job, holder, expires_at) values (?, ?, ?)').run('retention', 'old-process', Date.now() + 3_600_000);
      } finally {
        source.close();
      }
      const archive = join(dir, 'leases.tar');
      const backedUp = await runCli(['backup', '--to', archive], { DATA_DIR: live });
      expect(backedUp.code, backedUp.stdout).toBe(0);
      const restoredDir = join(dir, 'restored');
      const restored = await runCli(['restore', '--from', archive], { DATA_DIR: restoredDir });
      expect(restored.code, restored.stdout).toBe(0);
      expect(onlyJson(restored)).toMatchObject({ not_restored: { job_leases: 1 }, tables: { job_leases: 0, tenants: 1 } });
      const copy = new BetterSqlite3(join(restoredDir, 'booking.sqlite'), { readonly: true });
      try {
        expect(copy.prepare('select count(*) from job_leases').pluck().get()).toBe(0);
        expect(copy.prepare('select count(*) from tenants').pluck().get()).toBe(1);
      } finally {
        copy.close();
      }
    },
    slow,
  );
});

describe('the data directory lock of a SQLite service', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'booking-lock-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'a second server on the same DATA_DIR refuses to start; a lock left by a dead process is taken over',
    async () => {
      const first = await started(dir);
      try {
        const second = startServer(await freePort(), { DATA_DIR: dir, PUBLIC_URL: publicUrl, LOG_LEVEL: 'warn' });
        expect(await second.exited).toBe(1);
        expect(second.stderr()).toContain(`in use by server (pid ${String(first.child.pid)}`);
      } finally {
        await stop(first);
      }
      expect(existsSync(join(dir, lockFileName))).toBe(false);

      // A crashed server leaves its lock behind: its pid no longer runs, so the next start takes over.
      const dead = spawn(process.execPath, ['-e', '']);
      await new Promise((resolve) => dead.on('exit', resolve));
      writeFileSync(join(dir, lockFileName), `${JSON.stringify({ pid: dead.pid, host: hostname(), purpose: 'server', since: new Date().toISOString() })}\n`);
      const next = await started(dir);
      await stop(next);
      expect(existsSync(join(dir, lockFileName))).toBe(false);
    },
    slow,
  );
});
