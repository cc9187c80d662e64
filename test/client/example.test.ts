import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledEntry } from '../support/compiled-service.js';
import { crud, listeningService } from '../support/listening-service.js';
import type { ListeningService } from '../support/listening-service.js';
import { childEnv, repoRoot } from '../support/run-cli.js';

/** Runs examples/integration.ts as `npx tsx` would, compiled once with its transform (test/support/compiled-service.ts). */
function runExample(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, compiledEntry('examples/integration.js'), { cwd: repoRoot, env: childEnv(env), timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: typeof error?.code === 'number' ? error.code : error ? 1 : 0, stdout, stderr });
    });
  });
}

describe.each([false, true])('examples/integration.ts against the service (DPoP %s)', (dpop) => {
  let service: ListeningService;
  let dir: string;

  beforeAll(async () => {
    service = await listeningService({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32', ...(dpop ? { DPOP_NONCE: 'true' } : {}) } });
    // main.ts starts the dispatcher; this in-process service starts it here.
    service.h.app.dispatcher.start(100);
    dir = mkdtempSync(join(tmpdir(), 'booking-example-'));
  });
  afterAll(async () => {
    await service.h.app.dispatcher.stop();
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a product, books it, pages the bookings, updates with ETag retries and receives verified webhooks', async () => {
    const credentials = await service.credentials(['products:create', 'products:read', 'products:update', 'bookings:create', 'bookings:list', 'webhooks:create']);
    const keyFile = join(dir, 'client.key');
    writeFileSync(keyFile, credentials.privateKey, { mode: 0o600 });
    const run = await runExample({ BOOKING_URL: service.origin, BOOKING_CLIENT_ID: credentials.clientId, BOOKING_KEY_FILE: keyFile, BOOKING_DPOP: String(dpop) });
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
    expect(summary).toMatchObject({ bookings: 7, first_night: '2030-06-01T15:00:00.000Z', last_night: '2030-06-07T15:00:00.000Z', total_items: 7, webhooks_verified: 7 });

    // What the example reports is what the service holds.
    const token = await service.h.bearer(credentials.tenantId, crud('bookings'));
    const listed = await service.h.request({ method: 'GET', url: `/v1/bookings?product_id=${String(summary.product_id)}`, token });
    expect(listed.json()).toMatchObject({ total: 7 });
  }, 60_000);
});
