import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOperatorServices } from '../../../cli/operator-services.js';
import { loadConfig } from '../../../src/config/config.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { freePort } from '../../support/free-port.js';
import { decodeTraceExport } from '../../support/otlp-protobuf.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';
import { startServer } from '../../support/server-process.js';
import type { ServerProcess } from '../../support/server-process.js';

/*
 * Traces of the real server (src/main.ts) arrive at a real OTLP/HTTP receiver: a small HTTP
 * server in this file that takes `POST /v1/traces` and decodes the export as a collector
 * would: protobuf, the default, or JSON when `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`.
 */

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly boolValue?: boolean;
}

interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes?: readonly { readonly key: string; readonly value: OtlpValue }[];
}

interface OtlpExport {
  readonly resourceSpans: readonly { readonly scopeSpans: readonly { readonly spans: readonly OtlpSpan[] }[] }[];
}

/** OTLP's span kinds (the JSON encoding numbers them). */
const kind = { internal: 1, server: 2, client: 3 } as const;

const attributes = (span: OtlpSpan): Record<string, string | number | boolean | undefined> =>
  Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue))]));

async function eventually<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function listen(handler: (path: string, headers: IncomingHttpHeaders, body: Buffer) => number): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = handler(req.url ?? '/', req.headers, Buffer.concat(chunks));
      res.writeHead(status, { 'content-type': 'application/json' }).end(status === 200 ? '{}' : '');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, origin: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
    }),
  );
}

/** Environment that makes the server write the CommonJS modules it loaded to `file` when it exits. */
const probeLoadedModules = (file: string) => ({ NODE_OPTIONS: '--import=./test/support/loaded-packages.mjs', LOADED_MODULES_FILE: file });
const openTelemetryModules = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as string[]).filter((path) => path.includes('/@opentelemetry/'));

// One traced server process: the export check reads it while it runs, the last step stops it.
describe('OpenTelemetry traces over OTLP/HTTP', { shuffle: false }, () => {
  let dir: string;
  let instance: ServerProcess;
  const spans: OtlpSpan[] = [];
  const exports: { contentType: string | undefined; path: string }[] = [];
  const deliveries: IncomingHttpHeaders[] = [];
  const servers: Server[] = [];
  let webhookUrl: string;
  let tenantId: string;
  let client: { clientId: string; kid: string; key: ReturnType<typeof clientKeyPair> };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-tracing-'));
    const collector = await listen((path, headers, body) => {
      exports.push({ contentType: headers['content-type'], path });
      if (path !== '/v1/traces') return 404;
      const decoded: OtlpExport = headers['content-type'] === 'application/json' ? (JSON.parse(body.toString('utf8')) as OtlpExport) : decodeTraceExport(body);
      for (const resource of decoded.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      return 200;
    });
    const receiver = await listen((_path, headers) => {
      deliveries.push(headers);
      return 204;
    });
    servers.push(collector.server, receiver.server);
    webhookUrl = `${receiver.origin}/hook`;
    const port = await freePort();
    const env = {
      DATA_DIR: join(dir, 'data'),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.origin,
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      ...probeLoadedModules(join(dir, 'loaded-modules.json')),
    };
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const database = openDatabase(config);
    try {
      await migrateToLatest(database);
      await SigningKeyStore.open({ file: join(env.DATA_DIR, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
      const operator = await buildOperatorServices(config, database);
      tenantId = String(((await operator.createTenant({ name: 'Traced', level: 'tenant', parent: undefined, currency: undefined })) as Record<string, unknown>)._id);
      const key = clientKeyPair();
      writeFileSync(join(dir, 'client.pub'), key.publicPem);
      const created = (await operator.createClient({
        name: 'traced',
        tenant: tenantId,
        capabilities: 'products:create webhooks:create',
        publicKeyFile: join(dir, 'client.pub'),
        kid: undefined,
        ipAllow: undefined,
      })) as Record<string, unknown>;
      client = { clientId: String(created.client_id), kid: String(created.kid), key };
    } finally {
      await database.close();
    }
    instance = startServer(port, env);
    await instance.waitReady(60_000);
  }, 90_000);

  afterAll(async () => {
    if (instance && instance.child.exitCode === null) instance.child.kill('SIGKILL');
    await instance?.exited;
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("exports a request span continuing the caller's traceparent, a unit-of-work child, and a webhook delivery span whose traceparent the receiver gets", async () => {
    const assertion = await signAssertion(client.key, client.clientId, `${instance.origin}/v1/auth/token`, { kid: client.kid });
    const issued = await fetch(`${instance.origin}/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
      }),
    });
    expect(issued.status).toBe(200);
    const bearer = String(((await issued.json()) as Record<string, unknown>).access_token);
    const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
    const hook = await fetch(`${instance.origin}/v1/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: webhookUrl, events: ['products.created'] }) });
    expect(hook.status).toBe(201);

    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const created = await fetch(`${instance.origin}/v1/products`, {
      method: 'POST',
      headers: { ...headers, traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify({ name: 'Traced room', description: 'Quiet', address: 'Musterstraße 1', city: 'Berlin', zip_code: '10115', country: 'DE', total_items: 2 }),
    });
    expect(created.status).toBe(201);

    const request = await eventually('the request span', () => spans.find((span) => span.traceId === traceId && span.kind === kind.server), 10_000);
    expect(request).toMatchObject({ name: 'products.create', parentSpanId: callerSpanId });
    expect(attributes(request)).toMatchObject({
      'booking.principal_type': 'client',
      'booking.tenant_id': tenantId,
      'http.request.method': 'POST',
      'http.route': '/v1/products',
      'http.response.status_code': 201,
    });
    const unit = await eventually('the unit-of-work span', () => spans.find((span) => span.traceId === traceId && span.name === 'unit of work'), 10_000);
    expect(unit).toMatchObject({ parentSpanId: request.spanId, kind: kind.internal });
    expect(attributes(unit)['db.system.name']).toBe('sqlite');
    // OTLP's default encoding: protobuf.
    expect(exports.every((e) => e.path === '/v1/traces' && e.contentType === 'application/x-protobuf')).toBe(true);

    // The delivery of products.created carries the traceparent of its own span.
    const delivered = await eventually('the webhook delivery', () => deliveries.find((h) => String(h['webhook-id']).startsWith('msg_')), 10_000);
    const traceparent = String(delivered.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const [, deliveryTraceId, deliverySpanId] = traceparent.split('-');
    const delivery = await eventually('the delivery span', () => spans.find((span) => span.spanId === deliverySpanId), 10_000);
    expect(delivery).toMatchObject({ traceId: deliveryTraceId, name: 'webhook delivery', kind: kind.client });
    expect(attributes(delivery)).toMatchObject({ 'booking.delivery_id': String(delivered['webhook-id']), 'booking.attempt': 1, 'http.response.status_code': 204 });

    // Never a token, a record's values or an address in what was exported.
    const exported = JSON.stringify(spans);
    for (const secret of [bearer, assertion, 'Musterstraße', 'Traced room', '127.0.0.1']) expect(exported).not.toContain(secret);
  }, 40_000);
  it('loads the OpenTelemetry SDK when an endpoint is set, and has exported its spans once stopped', async () => {
    const before = spans.length;
    const res = await fetch(`${instance.origin}/health`);
    expect(res.status).toBe(200);
    instance.child.kill('SIGTERM');
    expect(await instance.exited).toBe(0);
    expect(spans.length).toBeGreaterThan(before);
    expect(openTelemetryModules(join(dir, 'loaded-modules.json')).some((path) => path.includes('/@opentelemetry/sdk-trace/'))).toBe(true);
  }, 30_000);
});

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('serves requests without loading the OpenTelemetry SDK', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'booking-untraced-'));
    const port = await freePort();
    const server = startServer(port, { DATA_DIR: join(dir, 'data'), PUBLIC_URL: `http://127.0.0.1:${port}`, ...probeLoadedModules(join(dir, 'loaded-modules.json')) });
    try {
      await server.waitReady(60_000);
      // A refused read runs the request pipeline (hooks, authentication, error answer) without a token to set up.
      expect((await fetch(`${server.origin}/v1/products/`)).status).toBe(401);
      expect((await fetch(`${server.origin}/health`)).status).toBe(200);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      // prom-client's default process metrics require the API package (no-op without an SDK) for
      // exemplars; nothing of the SDK, the exporter or a context manager may load.
      expect(openTelemetryModules(join(dir, 'loaded-modules.json')).filter((path) => !path.includes('/@opentelemetry/api/'))).toEqual([]);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
