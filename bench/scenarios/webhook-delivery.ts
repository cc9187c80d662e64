/**
 * `webhook-delivery`: outgoing webhooks from the transactional outbox to a real receiver on
 * loopback (in this process, answering 204 at once). Two phases on one service process:
 *
 * - latency with an idle queue: one `POST /v1/products` at a time, the next only once the
 *   previous event arrived (after a random pause of up to 100 ms, so writes do not line up
 *   with the dispatcher's polling); commit→delivery is measured from sending the write (its
 *   commit is inside it, so this slightly overstates) to the event's arrival. p50/p99.
 * - throughput: `--connections` writers create products for `--duration` seconds; events/s
 *   delivered = events ÷ (first write → last delivery), so a dispatcher that falls behind
 *   the writers shows up as a lower figure and a longer `drainMs`.
 *
 * `rps` of the result is events/s delivered; CPU is per delivered event (writes included).
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { buildOperatorServices } from '../../cli/operator-services.js';
import { freePort } from '../../test/support/free-port.js';
import { cpuSeconds } from '../cpu-time.js';
import type { BenchClient } from '../fixtures.js';
import { productBody } from '../fixtures.js';
import { startService, toMb } from '../harness.js';
import type { BenchContext, ScenarioResult } from '../harness.js';
import { es256Key } from '../jws.js';
import { fetchToken } from '../oauth-requests.js';
import { RssSampler } from '../rss-sampler.js';
import { seedOnce, withStorage } from '../seed-storage.js';

/** The receiver: keeps when each record's event arrived, and every arrival time. */
async function startReceiver() {
  const waiters = new Map<string, (at: number) => void>();
  const seen = new Map<string, number>();
  const arrivals: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      arrivals.push(at);
      response.writeHead(204).end();
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { _id?: string } }).data?._id;
      if (!id) return;
      seen.set(id, at);
      waiters.get(id)?.(at);
    });
  });
  server.keepAliveTimeout = 5000;
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/events`,
    arrivals,
    /** Resolves with the arrival time of `id`'s event, which may have come already (or rejects after `timeoutMs`). */
    arrivalOf(id: string, timeoutMs = 30_000): Promise<number> {
      const already = seen.get(id);
      if (already !== undefined) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no webhook for ${id} within ${timeoutMs} ms`)), timeoutMs);
        waiters.set(id, (at) => {
          clearTimeout(timer);
          waiters.delete(id);
          resolve(at);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

export async function webhookDeliveryScenario(ctx: BenchContext): Promise<ScenarioResult> {
  const { options, fixtures } = ctx;
  // A client of its own: the shared bench client's capabilities (and token) stay as they are.
  const client: BenchClient = await seedOnce(ctx, 'webhook-delivery', () =>
    withStorage(ctx.config, async (database) => {
      const key = es256Key();
      const keyFile = join(ctx.config.dataDir, 'bench-webhooks.pub');
      writeFileSync(keyFile, key.publicPem);
      const created: Record<string, unknown> = await (
        await buildOperatorServices(ctx.config, database)
      ).createClient({
        name: 'bench webhooks',
        tenant: fixtures.tenantId,
        capabilities: 'products:create webhooks:create webhooks:delete',
        publicKeyFile: keyFile,
        kid: 'bench-webhooks',
        ipAllow: undefined,
      });
      return { clientId: String(created._id), kid: String(created.kid), key };
    }),
  );
  const receiver = await startReceiver();
  // The receiver is on loopback: allowed explicitly, as an operator would for an internal one.
  const server = await startService({ ...ctx, serviceEnv: { ...ctx.serviceEnv, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
  const sampler = new RssSampler(() => [server.pid]);
  let sampling = false;
  let removeWebhook = async (): Promise<void> => undefined;
  try {
    const token = await fetchToken(ctx.origin, ctx.tokenEndpoint, client);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const hook = await fetch(`${ctx.origin}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: receiver.url, events: ['products.created'] }) });
    if (hook.status !== 201) throw new Error(`webhook-delivery: creating the webhook answered ${hook.status} ${await hook.text()}`);
    // Removed at the end, so a later round (`--repeat`) does not also deliver to this receiver.
    const webhookId = ((await hook.json()) as { _id: string })._id;
    const etag = hook.headers.get('etag') ?? '*';
    removeWebhook = async () => {
      const removed = await fetch(`${ctx.origin}/v1/webhooks/${webhookId}`, { method: 'DELETE', headers: { authorization: headers.authorization, 'if-match': etag } });
      if (removed.status !== 204) throw new Error(`DELETE answered ${removed.status}`);
    };
    let n = 0;
    const create = async (): Promise<string> => {
      const answer = await fetch(`${ctx.origin}/v1/products`, { method: 'POST', headers, body: JSON.stringify(productBody(n++)) });
      const body = (await answer.json()) as { _id?: string };
      if (answer.status !== 201 || !body._id) throw new Error(`webhook-delivery: create answered ${answer.status}`);
      return body._id;
    };
    const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 100));

    // Latency with an idle queue (the warm-up runs the same way, unmeasured).
    const idleLatencies = async (seconds: number): Promise<number[]> => {
      const samples: number[] = [];
      const end = performance.now() + seconds * 1000;
      while (performance.now() < end) {
        await pause();
        const sent = performance.now();
        // The event may arrive before the 201 does: the receiver keeps its time by record id.
        const id = await create();
        samples.push((await receiver.arrivalOf(id)) - sent);
      }
      return samples;
    };
    sampler.start();
    sampling = true;
    if (options.warmup > 0) await idleLatencies(options.warmup);
    const cpuBefore = cpuSeconds([server.pid]);
    const latencies = (await idleLatencies(options.duration)).sort((a, b) => a - b);

    // Throughput: writers for --duration seconds, then wait for the last event.
    const before = receiver.arrivals.length;
    const ids: string[] = [];
    const started = performance.now();
    const stopAt = started + options.duration * 1000;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (performance.now() < stopAt) ids.push(await create());
      }),
    );
    const writesDone = performance.now();
    const deadline = Date.now() + 120_000;
    while (receiver.arrivals.length - before < ids.length) {
      if (Date.now() > deadline) throw new Error(`webhook-delivery: ${receiver.arrivals.length - before} of ${ids.length} events arrived within 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const lastArrival = Math.max(...receiver.arrivals.slice(before));
    const cpuAfter = cpuSeconds([server.pid]);
    const peak = sampler.stop();
    sampling = false;
    const events = ids.length;
    const eventsPerSecond = events / ((lastArrival - started) / 1000);
    const delivered = latencies.length + events;
    return {
      scenario: 'webhook-delivery',
      rps: round(eventsPerSecond, 0),
      p50: round(percentile(latencies, 50), 2),
      p99: round(percentile(latencies, 99), 2),
      peakRssMb: toMb(peak),
      cpuMsPerRequest: cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / delivered, 3),
      phase: null,
      extra: {
        idleSamples: latencies.length,
        idleMaxMs: round(latencies.at(-1) ?? Number.NaN, 1),
        throughputEvents: events,
        writesPerSecond: round(events / ((writesDone - started) / 1000), 0),
        drainMs: round(lastArrival - writesDone, 0),
      },
    };
  } finally {
    if (sampling) sampler.stop();
    await removeWebhook().catch((error: unknown) => console.error(`  webhook-delivery: the webhook could not be removed: ${String(error)}`));
    await server.stop();
    await receiver.close();
  }
}
