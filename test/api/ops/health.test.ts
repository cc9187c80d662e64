import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/dialect.js';
import { healthRoutes } from '../../../src/routes/health.js';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { openStorageApp } from '../../support/storage-app.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(dialects)('health, readiness and routing on %s', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness(dialect);
  });
  afterAll(() => h.close());

  it('/health answers 200 application/health+json without authentication', async () => {
    const res = await h.request({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/health\+json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ status: 'pass' });
  });

  it('/ready answers 200 when the database answers and every migration is applied', async () => {
    const res = await h.request({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/health\+json/);
    expect(res.json()).toMatchObject({ status: 'pass', checks: { 'database:connection': [{ status: 'pass' }], 'database:migrations': [{ status: 'pass' }] } });
  });

  it('/ready answers 503 while a migration is missing', async () => {
    const { db } = h.database;
    const rows = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name`.execute(db);
    const last = rows.rows.at(-1);
    if (!last) throw new Error('no migrations recorded');
    await sql`delete from kysely_migration where name = ${last.name}`.execute(db);
    try {
      const res = await h.request({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 'fail', checks: { 'database:migrations': [{ status: 'fail' }] } });
      expect((await h.request({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await sql`insert into kysely_migration (name, timestamp) values (${last.name}, ${last.timestamp})`.execute(db);
    }
    expect((await h.request({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
  });

  it('/ready answers 503 while shutting down', async () => {
    h.app.state.shuttingDown = true;
    try {
      const res = await h.request({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json().checks['process:shutdown']).toEqual([{ status: 'fail', output: 'shutting down' }]);
    } finally {
      h.app.state.shuttingDown = false;
    }
  });

  it('an unsupported method on a known path is 405 with Allow', async () => {
    const cases: [string, string, string[]][] = [
      ['PUT', '/v1/products', ['GET', 'POST']],
      ['PUT', '/v1/products/', ['GET', 'POST']],
      ['POST', '/health', ['GET', 'HEAD']],
      ['DELETE', '/v1/audit-logs/x', ['GET', 'HEAD']],
    ];
    for (const [method, url, allow] of cases) {
      const res = await h.request({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
      const allowed = String(res.headers.allow).split(', ');
      expect(allowed).not.toContain(method);
      expect(allowed).toEqual(expect.arrayContaining(allow));
    }
  });

  it('an unknown path is a 404 problem, before any authentication', async () => {
    for (const url of ['/nope', '/v1/unknown-resource', '/v1/products/a/b/c', '/v2/products']) {
      const res = await h.request({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 404, code: 'not_found', instance: url });
    }
  });

  it('every response carries its own x-request-id; a client-sent id is not trusted', async () => {
    const responses = await Promise.all([
      h.request({ method: 'GET', url: '/health' }),
      h.request({ method: 'GET', url: '/nope' }),
      h.request({ method: 'GET', url: '/v1/products/' }),
      h.request({ method: 'GET', url: '/health', headers: { 'x-request-id': 'injected\u0000id' } }),
    ]);
    const ids = responses.map((res) => String(res.headers['x-request-id']));
    for (const id of ids) expect(id).toMatch(uuid);
    expect(new Set(ids).size).toBe(ids.length);
    expect(responses[2]?.statusCode).toBe(401);
  });
});

describe('readiness against a hanging database', () => {
  it('/ready answers 503 within its time limit instead of hanging', async () => {
    const app = Fastify({ logger: false });
    const database = { ping: () => new Promise<void>(() => undefined) } as unknown as Database;
    await app.register(healthRoutes(database, { shuttingDown: false }, { readyTimeoutMs: 50 }));
    // The ping never settles, so any answer at all comes from the time limit: no wall-clock
    // budget to assert (a hang would fail on the test's own timeout).
    const res = await app.inject({ method: 'GET', url: '/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json().checks['database:connection']).toEqual([{ status: 'fail', output: 'database unreachable' }]);
    await app.close();
  });
});

describe.each(dialects)('readiness without a database on %s', (dialect) => {
  it('/ready answers 503 once the database is closed, /health stays 200', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'booking-ready-'));
    const env: Record<string, string> = dialect === 'postgres' ? { DATA_DIR: dataDir, DATABASE_URL: await freshPostgresUrl() } : { DATA_DIR: dataDir };
    const storage = await openStorageApp(env);
    try {
      expect((await storage.app.server.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
      await storage.database.close();
      const res = await storage.app.server.inject({ method: 'GET', url: '/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ status: 'fail', checks: { 'database:connection': [{ status: 'fail', output: 'database unreachable' }] } });
      expect(res.body).not.toMatch(/destroyed|ECONNREFUSED|pool/i);
      expect((await storage.app.server.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    } finally {
      await storage.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
