import { createConnection, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, createClient, RateLimitError } from '../../packages/client/src/index.js';
import { freePort } from '../support/free-port.js';
import { crud, listeningService, recordingFetch } from '../support/listening-service.js';
import type { ClientCredentials, ListeningService } from '../support/listening-service.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };

/** A real sleep that remembers how long it was asked to wait. */
function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: (ms) => (waits.push(ms), new Promise((resolve) => setTimeout(resolve, ms))) };
}

describe('client library: 429 answers of the real rate limiter', () => {
  let service: ListeningService;
  let credentials: ClientCredentials;

  beforeAll(async () => {
    service = await listeningService({ env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_READS: '2', RATE_LIMIT_WINDOW_SECONDS: '1' } });
    credentials = await service.credentials(crud('products'));
  });
  afterAll(() => service.close());

  it('waits out Retry-After and completes every request', async () => {
    const { sleep, waits } = recordingSleep();
    const recorder = recordingFetch();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, sleep, fetch: recorder.fetch });
    for (let i = 0; i < 5; i++) expect(await client.products.list().toArray()).toEqual([]);
    expect(waits.length).toBeGreaterThan(0);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(1000);
    expect(recorder.count('GET /v1/products')).toBe(5 + waits.length);
  });

  it('throws RateLimitError without waiting when Retry-After exceeds maxRetryAfterSeconds', async () => {
    const { sleep, waits } = recordingSleep();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, sleep, retry: { maxRetryAfterSeconds: 0 } });
    const errors = await Promise.all(
      Array.from({ length: 4 }, () =>
        client.products
          .list()
          .toArray()
          .then(
            () => undefined,
            (e: unknown) => e,
          ),
      ),
    );
    const limited = errors.filter((e) => e !== undefined);
    expect(limited.length).toBeGreaterThan(0);
    for (const error of limited) {
      expect(error).toBeInstanceOf(RateLimitError);
      expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: expect.any(Number) });
      expect((error as RateLimitError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    expect(waits).toEqual([]);
  });

  it('stops after maxAttempts when the limit keeps answering 429', async () => {
    const { sleep, waits } = recordingSleep();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, sleep, retry: { maxAttempts: 1 } });
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        client.products
          .list()
          .toArray()
          .then(
            () => 'ok',
            (e: unknown) => e,
          ),
      ),
    );
    expect(results.some((r) => r instanceof RateLimitError)).toBe(true);
    expect(waits).toEqual([]);
  });
});

/**
 * A TCP proxy in front of the service that can cut the connection of the next requests
 * after receiving them, before any answer: the failure where a client cannot know whether
 * the request took effect.
 */
async function cuttingProxy(target: () => number): Promise<{ port: number; cutNext(n: number): void; cuts(): number; close(): Promise<void> }> {
  const port = await freePort();
  let toCut = 0;
  let cut = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const upstream = createConnection(target(), '127.0.0.1');
    sockets.add(upstream);
    socket.on('data', (chunk: Buffer) => {
      if (toCut > 0 && /^[A-Z]+ \//.test(chunk.toString('latin1', 0, 16))) {
        toCut -= 1;
        cut += 1;
        socket.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => socket.write(chunk));
    const end = () => (socket.destroy(), upstream.destroy());
    socket.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    cutNext: (n) => (toCut = n),
    cuts: () => cut,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('client library: network failures', () => {
  let service: ListeningService;
  let proxy: Awaited<ReturnType<typeof cuttingProxy>>;
  let credentials: ClientCredentials;
  let servicePort = 0;

  beforeAll(async () => {
    proxy = await cuttingProxy(() => servicePort);
    service = await listeningService({ publicUrl: `http://127.0.0.1:${proxy.port}` });
    servicePort = Number(new URL(service.origin).port);
    credentials = await service.credentials(crud('products'));
  });
  afterAll(async () => {
    await proxy.close();
    await service.close();
  });

  const connect = (recorder: ReturnType<typeof recordingFetch>) =>
    createClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, clientId: credentials.clientId, privateKey: credentials.privateKey, fetch: recorder.fetch, retry: { networkBackoffMs: 10 } });

  it('retries an idempotent request whose connection was cut', async () => {
    const recorder = recordingFetch();
    const client = connect(recorder);
    await client.accessToken();
    proxy.cutNext(1);
    expect(await client.products.list().toArray()).toEqual([]);
    expect(recorder.count('GET /v1/products')).toBe(2);
  });

  it('does not retry a POST whose connection was cut: its effect is unknown', async () => {
    const recorder = recordingFetch();
    const client = connect(recorder);
    await client.accessToken();
    proxy.cutNext(1);
    const error = await client.products.create(product).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ attempts: 1, message: expect.stringContaining('not idempotent') });
    expect(recorder.count('POST /v1/products')).toBe(1);
  });

  it('gives up on an idempotent request after maxAttempts', async () => {
    const recorder = recordingFetch();
    const client = connect(recorder);
    await client.accessToken();
    proxy.cutNext(10);
    const error = await client.products.get('some-id').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ attempts: 3 });
    expect(recorder.count('GET /v1/products/some-id')).toBe(3);
    proxy.cutNext(0);
  });
});
