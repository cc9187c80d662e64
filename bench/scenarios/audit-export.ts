/**
 * `audit-export`: `GET /v1/audit-logs/export?resource=bookings` (NDJSON) of a tenant holding
 * `--rows` such audit entries, one stream at a time, repeated until the measured time is up
 * (at least one full export). The figure that matters is the service's peak RSS: a
 * streaming export keeps it flat however many entries there are.
 */
import { seedAuditEntries } from '../bulk-seed.js';
import { cpuSeconds } from '../cpu-time.js';
import { measureStreams } from '../stream-load.js';
import type { StreamResult } from '../stream-load.js';
import { settledFields, startService, toMb } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { fetchToken } from '../oauth-requests.js';
import { residentBytes, RssSampler } from '../rss-sampler.js';
import { seedOnce, withStorage } from '../seed-storage.js';

export async function auditExportScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { fixtures, options } = ctx;
  const seedSeconds = await seedOnce(ctx, 'audit-export', async () => {
    const seconds = await withStorage(ctx.config, (database) =>
      seedAuditEntries(database, fixtures.tenantId, fixtures.client.clientId, fixtures.bookingProducts.get(fixtures.tenantId) ?? [], options.rows),
    );
    console.error(`  seeded ${options.rows} audit entries in ${seconds.toFixed(1)} s`);
    return seconds;
  });
  const server = await startService(ctx);
  try {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, fixtures.client);
    // Only the seeded entries: earlier scenarios add their own (tokens, creates), which would
    // make the export's size depend on which scenarios ran before.
    const url = `${ctx.origin}/v1/audit-logs/export?resource=bookings`;
    const headers = { authorization: `Bearer ${token}` };
    const idle = residentBytes(server.pid);
    const sampler = new RssSampler(() => [server.pid]);
    sampler.start();
    let streams: StreamResult;
    let peak: number | null;
    let cpuMs: number | null = null;
    try {
      if (options.warmup > 0) await measureStreams(url, headers, options.warmup, false);
      const cpuBefore = cpuSeconds([server.pid]);
      streams = await measureStreams(url, headers, options.duration, true);
      const cpuAfter = cpuSeconds([server.pid]);
      cpuMs = cpuBefore === null || cpuAfter === null || streams.exports === 0 ? null : Math.round(((cpuAfter - cpuBefore) * 1000) / streams.exports);
    } finally {
      peak = sampler.stop();
    }
    const settled = await server.settle?.();
    if (streams.entriesPerExport !== options.rows) throw new Error(`audit-export: ${streams.entriesPerExport} entries exported, expected ${options.rows}`);
    return {
      scenario: 'audit-export',
      rps: streams.exportsPerSecond,
      p50: streams.p50,
      p99: streams.p99,
      peakRssMb: toMb(peak),
      ...settledFields(settled),
      cpuMsPerRequest: cpuMs,
      phase: null,
      extra: {
        exports: streams.exports,
        entriesPerExport: streams.entriesPerExport,
        entriesPerSecond: streams.entriesPerSecond,
        mbPerSecond: streams.mbPerSecond,
        mbPerExport: streams.mbPerExport,
        rssBeforeMb: toMb(idle),
        seedSeconds: Math.round(seedSeconds * 10) / 10,
        seedRowsPerSecond: Math.round(options.rows / seedSeconds),
      },
    };
  } finally {
    await server.stop();
  }
}
