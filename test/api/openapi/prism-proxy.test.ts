import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { actions } from '../../../src/actions/index.js';
import { capabilities } from '../../../src/actions/capabilities.js';
import type { OpenApiDocument } from '../../../src/routes/openapi-document.js';
import { openApiPath } from '../../../src/routes/openapi-route-paths.js';
import { resources } from '../../../src/registry/index.js';
import type { ResourceName } from '../../../src/registry/index.js';
import { freePort } from '../../support/free-port.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';
import { listeningService } from '../../support/listening-service.js';
import type { ListeningService } from '../../support/listening-service.js';
import { codeIn, startSmtp, waitFor } from '../../support/mail-and-sms.js';
import { startOidcProvider } from '../../support/oidc-provider.js';
import type { TestOidcProvider } from '../../support/oidc-provider.js';
import { startPrismProxy } from '../../support/prism-proxy.js';
import type { PrismProxy, ProxiedAnswer, Violation } from '../../support/prism-proxy.js';
import { minimalBody, patchBody, productBody } from '../../support/resource-bodies.js';
import { createUserIn } from '../../support/user-sign-in.js';

/*
 * The OpenAPI document against the real service, judged by a validator that is not ours:
 * Stoplight Prism's `prism proxy` stands between the test and the service and checks every
 * request and every answer against the document the service serves (docs/api.md "The
 * OpenAPI document"). The test drives every declared action (src/actions) and every
 * trailing-slash form of a collection through it, each at least once with success and
 * once with a refusal, and fails on anything Prism reports: a request the document does
 * not describe, a status, header or body it does not declare. A refusal the document
 * itself calls invalid (a missing required member, a missing token) must be reported by
 * Prism as a request violation, and its answer is still checked. A new action without
 * a call here fails the coverage check at the end.
 */

/** Every capability the service knows, so only the calls themselves decide what is refused. */
const everything = capabilities.map((c) => c.name);
/** An id of the service's form that names no record. */
const missingId = '01a00000-0000-7000-8000-000000000000';
const appRedirect = 'https://app.example/signed-in';
const far = { start_time: '2030-06-01T10:00:00Z', end_time: '2030-06-03T10:00:00Z' } as const;

interface Sent {
  readonly method: string;
  readonly url: string;
  readonly body?: unknown;
  /** A body sent as it is, with its own content type. */
  readonly raw?: { readonly text: string; readonly type: string };
  readonly headers?: Record<string, string>;
  /** The caller's token; `null` sends none. */
  readonly token?: string | null;
  /** The status the service must answer. */
  readonly status: number;
  /** A refusal of input the document calls invalid too: Prism must report the request. */
  readonly invalid?: boolean;
}

/** A document path as a pattern of concrete paths: `{id}` is one non-empty segment. */
const pathPattern = (path: string) => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);

describe('the service through a validating proxy (Prism) on the OpenAPI document', { shuffle: false }, () => {
  let service: ListeningService;
  let proxy: PrismProxy;
  let document: OpenApiDocument;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let oidc: TestOidcProvider;
  let workDir: string;
  let token = '';
  let tenant = '';
  let offset = 0;
  const patterns: { path: string; pattern: RegExp; templated: number }[] = [];
  /** `METHOD /document/path` → the statuses answered through the proxy. */
  const answered = new Map<string, number[]>();
  /** Everything that went wrong in the current test, reported together at its end. */
  const failures: string[] = [];
  beforeEach(() => {
    failures.length = 0;
  });

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'prism-proxy-'));
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    smtp = await startSmtp();
    oidc = await startOidcProvider({ redirectUris: [`${origin}/v1/auth/oauth/local/callback`], accounts: { ann: { email: 'ann@example.test', emailVerified: true } } });
    // PUBLIC_URL is the proxy's origin: token audiences, DPoP `htu`, feed and callback URLs name it.
    service = await listeningService({
      publicUrl: origin,
      clock: { now: () => Date.now() + offset },
      env: {
        SMTP_URL: smtp.url,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32',
        OAUTH_PROVIDERS: JSON.stringify([{ id: 'local', issuer: oidc.issuer, client_id: oidc.clientId, client_secret: oidc.clientSecret }]),
        OAUTH_ALLOW_HTTP_ISSUERS: 'true',
        OAUTH_REDIRECT_URIS: appRedirect,
      },
    });
    const served = await fetch(`${service.origin}/v1/openapi.json`);
    document = (await served.json()) as OpenApiDocument;
    const documentFile = join(workDir, 'openapi.json');
    writeFileSync(documentFile, JSON.stringify(document));
    for (const path of Object.keys(document.paths)) patterns.push({ path, pattern: pathPattern(path), templated: (path.match(/\{/g) ?? []).length });
    proxy = await startPrismProxy(documentFile, service.origin, port);
    tenant = await service.h.tenant('Prism', 'parent_tenant');
    token = await service.h.bearer(tenant, everything);
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await service?.close();
    await Promise.all([smtp?.close(), oidc?.close()]);
    rmSync(workDir, { recursive: true, force: true });
  });

  /** The document's operation a request reaches, as Prism chooses it: a literal path before a templated one. */
  function operationOf(method: string, url: string): string | undefined {
    const path = url.split('?')[0] ?? '';
    const matches = patterns.filter((p) => p.pattern.test(path) && document.paths[p.path]?.[method.toLowerCase()] !== undefined).sort((a, b) => a.templated - b.templated);
    return matches[0] ? `${method} ${matches[0].path}` : undefined;
  }

  /** Sends one request through the proxy; records what the service answered and what Prism found, against what `sent` expects. */
  async function call(sent: Sent): Promise<ProxiedAnswer> {
    const headers: Record<string, string> = { ...sent.headers };
    const bearer = sent.token === undefined ? token : sent.token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    let body: string | undefined;
    if (sent.raw) [body, headers['content-type']] = [sent.raw.text, sent.raw.type];
    else if (sent.body !== undefined) [body, headers['content-type']] = [JSON.stringify(sent.body), 'application/json'];
    const answer = await proxy.send(sent.method, sent.url, { headers, ...(body === undefined ? {} : { body }) });
    const where = `${sent.method} ${sent.url} → ${answer.status}`;
    const operation = operationOf(sent.method, sent.url);
    if (!operation) failures.push(`${where}: no operation of the document`);
    else {
      answered.set(operation, [...(answered.get(operation) ?? []), answer.status]);
      // Prism accepts any status through `default`; only a server error may fall to it.
      const [method = '', path = ''] = operation.split(' ');
      if (answer.status < 500 && !(String(answer.status) in (document.paths[path]?.[method.toLowerCase()]?.responses ?? {}))) failures.push(`${where}: status not declared`);
    }
    if (answer.status !== sent.status) failures.push(`${where}: expected ${sent.status}; ${answer.body.slice(0, 300)}`);
    const describe = (v: Violation) => `${v.location.join('.')} ${v.severity}: ${v.message}`;
    const onRequest = answer.violations.filter((v) => v.location[0] === 'request');
    const others = answer.violations.filter((v) => v.location[0] !== 'request');
    // A request Prism could not route is never what a call means, valid or not (a missing token is also located at `request`, with code 401).
    const unrouted = onRequest.filter((v) => v.location.length === 1 && v.code !== 401);
    if (others.length > 0) failures.push(`${where}: the answer breaks the document: ${others.map(describe).join('; ')}`);
    if (unrouted.length > 0) failures.push(`${where}: ${unrouted.map(describe).join('; ')}`);
    else if (sent.invalid === true && onRequest.length === 0) failures.push(`${where}: refused by the service, but the document calls the request valid`);
    else if (sent.invalid !== true && onRequest.length > 0) failures.push(`${where}: the document calls the request invalid: ${onRequest.map(describe).join('; ')}`);
    return answer;
  }

  /**
   * A redirect, sent to the service itself: Prism's upstream client follows redirects, so a
   * 302 cannot pass through it (the callback's would even leave for the application's
   * origin). Its status and `Location` are checked against the operation's declaration.
   */
  async function redirect(sent: Sent): Promise<string> {
    const answer = await fetch(`${service.origin}${sent.url}`, { method: sent.method, redirect: 'manual' });
    const where = `${sent.method} ${sent.url} → ${answer.status} (to the service)`;
    const operation = operationOf(sent.method, sent.url);
    const declared = operation ? document.paths[operation.slice(sent.method.length + 1)]?.[sent.method.toLowerCase()]?.responses[String(answer.status)] : undefined;
    if (!operation || !declared) failures.push(`${where}: not a declared answer`);
    else {
      answered.set(operation, [...(answered.get(operation) ?? []), answer.status]);
      if (!Object.keys((declared.headers as object | undefined) ?? {}).includes('Location')) failures.push(`${where}: Location is not declared`);
    }
    if (answer.status !== sent.status) failures.push(`${where}: expected ${sent.status}; ${(await answer.text()).slice(0, 300)}`);
    return answer.headers.get('location') ?? '';
  }

  const json = (answer: ProxiedAnswer) => JSON.parse(answer.body) as Record<string, unknown>;
  const idOf = (answer: ProxiedAnswer) => String(json(answer)._id);
  const etagOf = (answer: ProxiedAnswer) => String(answer.headers.etag);
  /** The current ETag of a record, read directly from the service (not a call under test). */
  async function etag(path: string): Promise<string> {
    const read = await service.h.request({ method: 'GET', url: path, token });
    if (read.statusCode !== 200) throw new Error(`GET ${path}: ${read.statusCode} ${read.body}`);
    return String(read.headers.etag);
  }

  it('answers the collection operations of every resource as documented, in both path forms', async () => {
    const parents = {
      productId: idOf(await call({ method: 'POST', url: '/v1/products', body: { ...productBody, total_items: 20, price: 100 }, status: 201 })),
      userId: idOf(await call({ method: 'POST', url: '/v1/users', body: { email: 'parent@example.com' }, status: 201 })),
    };
    const writable = resources.filter((r) => r.operations.includes('create'));
    /** The second record of each resource, made at the trailing-slash form: the one updated and deleted. */
    const spare = new Map<string, string>();
    for (const resource of writable) {
      const name = resource.name as ResourceName;
      const body = (n: number) => {
        const base = minimalBody(name, parents);
        if (name === 'users') return { email: `user${n}@example.com` };
        if (name === 'retention-policies') return { ...base, category: n === 1 ? 'data' : 'security' };
        return base;
      };
      await call({ method: 'POST', url: `/v1/${name}`, body: body(1), status: 201 });
      spare.set(name, idOf(await call({ method: 'POST', url: `/v1/${name}/`, body: body(2), status: 201 })));
      await call({ method: 'POST', url: `/v1/${name}`, body: { ...body(3), not_a_field: 1 }, status: 400, invalid: true });
      await call({ method: 'POST', url: `/v1/${name}/`, body: { ...body(3), not_a_field: 1 }, status: 400, invalid: true });
    }
    for (const resource of resources) {
      const name = resource.name;
      const list = document.paths[`/v1/${name}`]?.get;
      const fields = (list?.parameters ?? []).find((p) => (p as { name?: string }).name === 'fields') as { schema: { items: { enum: string[] } } } | undefined;
      const selectable = (fields?.schema.items.enum ?? []).filter((f) => f !== '_id').slice(0, 2);
      const where = encodeURIComponent(JSON.stringify({ created_at: { $gte: '2000-01-01T00:00:00Z' } }));
      const listed = json(await call({ method: 'GET', url: `/v1/${name}?fields=${selectable.join(',')}&per_page=5`, status: 200 }));
      expect((listed.items as unknown[]).length, name).toBeGreaterThan(0);
      await call({ method: 'GET', url: `/v1/${name}/?where=${where}&sort=-created_at`, status: 200 });
      await call({ method: 'GET', url: `/v1/${name}?per_page=0`, status: 400, invalid: true });
      await call({ method: 'GET', url: `/v1/${name}/?page=0`, status: 400, invalid: true });
      const first = json(await call({ method: 'GET', url: `/v1/${name}/?per_page=1`, status: 200 })).items as { _id: string }[];
      const id = spare.get(name) ?? first[0]?._id ?? '';
      await call({ method: 'GET', url: `/v1/${name}/${id}`, status: 200 });
      await call({ method: 'GET', url: `/v1/${name}/${missingId}`, status: 404 });
      await call({ method: 'GET', url: `/v1/${name}/${id}`, token: null, status: 401, invalid: true });
      if (resource.operations.includes('update')) {
        const path = `/v1/${name}/${id}`;
        // An order of a priced product is cancelled, its only change a client makes.
        const body = name === 'orders' ? { status: 'cancelled' } : patchBody(name as ResourceName);
        await call({ method: 'PATCH', url: path, body, headers: { 'if-match': '"stale"' }, status: 412 });
        await call({ method: 'PATCH', url: path, body, status: 428, invalid: true });
        await call({ method: 'PATCH', url: path, body, headers: { 'if-match': await etag(path) }, status: 200 });
      }
      if (resource.operations.includes('export')) {
        await call({ method: 'GET', url: `/v1/${name}/export?format=csv`, status: 200 });
        await call({ method: 'GET', url: `/v1/${name}/export?format=xml`, status: 400, invalid: true });
      }
    }
    // Children before their parents.
    for (const resource of [...writable].reverse()) {
      if (!resource.operations.includes('delete')) continue;
      const path = `/v1/${resource.name}/${spare.get(resource.name) ?? ''}`;
      await call({ method: 'DELETE', url: `/v1/${resource.name}/${missingId}`, headers: { 'if-match': '"x"' }, status: 404 });
      await call({ method: 'DELETE', url: path, headers: { 'if-match': await etag(path) }, status: 204 });
    }
    expect(failures).toEqual([]);
  });

  it('answers the selling, availability and calendar operations of a product as documented', async () => {
    const product = idOf(await call({ method: 'POST', url: '/v1/products', body: { ...productBody, price: 100, time_zone: 'Europe/Berlin' }, status: 201 }));
    const base = `/v1/products/${product}`;

    // Rates.
    const rate = idOf(await call({ method: 'POST', url: `${base}/rates`, body: minimalBody('product-rates', { productId: product, userId: '' }), status: 201 }));
    await call({ method: 'POST', url: `${base}/rates/`, body: { from: '2026-12-20', to: '2026-12-27', price: 110 }, status: 201 });
    await call({ method: 'POST', url: `${base}/rates`, body: { from: '2026-12-02', to: '2026-12-04', price: 80 }, status: 409 });
    await call({ method: 'POST', url: `${base}/rates/`, body: { price: 80 }, status: 400, invalid: true });
    await call({ method: 'GET', url: `${base}/rates?fields=price`, status: 200 });
    await call({ method: 'GET', url: `${base}/rates/?sort=-from`, status: 200 });
    await call({ method: 'GET', url: `/v1/products/${missingId}/rates`, status: 404 });
    await call({ method: 'GET', url: `/v1/products/${missingId}/rates/`, status: 404 });
    await call({ method: 'GET', url: `${base}/rates/${rate}`, status: 200 });
    await call({ method: 'GET', url: `${base}/rates/${missingId}`, status: 404 });
    const ratePath = `${base}/rates/${rate}`;
    await call({ method: 'PATCH', url: ratePath, body: patchBody('product-rates'), headers: { 'if-match': await etag(ratePath) }, status: 200 });
    await call({ method: 'PATCH', url: ratePath, body: patchBody('product-rates'), headers: { 'if-match': '"stale"' }, status: 412 });

    // Availability, quotes, orders and their confirmation.
    await call({ method: 'GET', url: `${base}/availability?from=2026-12-01&to=2026-12-08`, status: 200 });
    await call({ method: 'GET', url: `${base}/availability?from=2026-12-01`, status: 400, invalid: true });
    await call({ method: 'GET', url: `/v1/availability?from=2026-12-01&to=2026-12-08&quantity=1&fields=name`, status: 200 });
    await call({ method: 'GET', url: `/v1/availability?to=2026-12-08`, status: 400, invalid: true });
    const quote = json(await call({ method: 'POST', url: '/v1/quotes', body: { product_id: product, ...far }, status: 200 }));
    await call({ method: 'POST', url: '/v1/quotes', body: { product_id: missingId, ...far }, status: 404 });
    await call({ method: 'POST', url: '/v1/quotes', body: { product_id: product }, status: 400, invalid: true });
    const order = await call({ method: 'POST', url: '/v1/orders', body: { quote_id: quote.quote_id }, status: 201 });
    const orderPath = `/v1/orders/${idOf(order)}`;
    await call({ method: 'POST', url: `${orderPath}/confirm`, headers: { 'if-match': '"stale"' }, status: 412 });
    await call({ method: 'POST', url: `${orderPath}/confirm`, headers: { 'if-match': etagOf(order) }, status: 200 });
    await call({ method: 'POST', url: `/v1/orders/${missingId}/confirm`, headers: { 'if-match': '"x"' }, status: 404 });

    // The calendar feed, its export, and an import (the loopback discard port: its sync fails at once).
    await call({ method: 'GET', url: `${base}/calendar-feed`, status: 404 });
    const feed = json(await call({ method: 'POST', url: `${base}/calendar-feed`, status: 201 }));
    await call({ method: 'POST', url: `/v1/products/${missingId}/calendar-feed`, status: 404 });
    await call({ method: 'GET', url: `${base}/calendar-feed`, status: 200 });
    const file = new URL(String(feed.url)).pathname;
    const exported = await call({ method: 'GET', url: file, token: null, status: 200 });
    await call({ method: 'GET', url: file, token: null, headers: { 'if-none-match': String(exported.headers.etag) }, status: 304 });
    await call({ method: 'GET', url: `/v1/calendars/${'A'.repeat(43)}.ics`, token: null, status: 404 });
    const importBody = minimalBody('calendar-imports', { productId: product, userId: '' });
    const imported = idOf(await call({ method: 'POST', url: `${base}/calendar-imports`, body: importBody, status: 201 }));
    await call({ method: 'POST', url: `${base}/calendar-imports/`, body: { ...importBody, name: 'Booking.com' }, status: 201 });
    await call({ method: 'POST', url: `${base}/calendar-imports`, body: { name: 'no url' }, status: 400, invalid: true });
    await call({ method: 'POST', url: `${base}/calendar-imports/`, body: { name: 'no url' }, status: 400, invalid: true });
    await call({ method: 'GET', url: `${base}/calendar-imports?fields=name`, status: 200 });
    await call({ method: 'GET', url: `${base}/calendar-imports/`, status: 200 });
    await call({ method: 'GET', url: `/v1/products/${missingId}/calendar-imports`, status: 404 });
    await call({ method: 'GET', url: `/v1/products/${missingId}/calendar-imports/`, status: 404 });
    const importPath = `${base}/calendar-imports/${imported}`;
    await call({ method: 'GET', url: importPath, status: 200 });
    await call({ method: 'GET', url: `${base}/calendar-imports/${missingId}`, status: 404 });
    await call({ method: 'POST', url: `${importPath}/sync`, status: 200 });
    await call({ method: 'POST', url: `${base}/calendar-imports/${missingId}/sync`, status: 404 });
    await call({ method: 'DELETE', url: importPath, headers: { 'if-match': '"stale"' }, status: 412 });
    await call({ method: 'DELETE', url: importPath, headers: { 'if-match': await etag(importPath) }, status: 204 });
    await call({ method: 'DELETE', url: ratePath, headers: { 'if-match': '"stale"' }, status: 412 });
    await call({ method: 'DELETE', url: ratePath, headers: { 'if-match': await etag(ratePath) }, status: 204 });
    expect(failures).toEqual([]);
  });

  it('answers the webhook, client, user and retention operations as documented', async () => {
    // Outgoing webhooks: a ping, its attempts and a retry (no dispatcher runs: nothing is sent).
    const hook = idOf(await call({ method: 'POST', url: '/v1/webhooks', body: { url: 'https://hooks.example.com/prism', events: ['products.created'] }, status: 201 }));
    const ping = json(await call({ method: 'POST', url: `/v1/webhooks/${hook}/test`, status: 202 }));
    await call({ method: 'POST', url: `/v1/webhooks/${missingId}/test`, status: 404 });
    const delivery = String(ping.delivery_id);
    await call({ method: 'GET', url: `/v1/webhooks/${hook}/deliveries?fields=status`, status: 200 });
    await call({ method: 'GET', url: `/v1/webhooks/${hook}/deliveries/`, status: 200 });
    await call({ method: 'GET', url: `/v1/webhooks/${missingId}/deliveries`, status: 404 });
    await call({ method: 'GET', url: `/v1/webhooks/${missingId}/deliveries/`, status: 404 });
    await call({ method: 'GET', url: `/v1/webhooks/${hook}/deliveries/${delivery}/attempts`, status: 200 });
    await call({ method: 'GET', url: `/v1/webhooks/${hook}/deliveries/${missingId}/attempts`, status: 404 });
    await call({ method: 'POST', url: `/v1/webhooks/${hook}/deliveries/${delivery}/retry`, status: 202 });
    await call({ method: 'POST', url: `/v1/webhooks/${hook}/deliveries/${missingId}/retry`, status: 404 });
    await call({ method: 'POST', url: `/v1/webhooks/${hook}/rotate-secret`, status: 200 });
    await call({ method: 'POST', url: `/v1/webhooks/${missingId}/rotate-secret`, status: 404 });
    await call({ method: 'GET', url: '/v1/webhooks/events', status: 200 });
    await call({ method: 'GET', url: '/v1/webhooks/events', token: null, status: 401, invalid: true });

    // Incoming webhooks: a signed event, and one with a bad signature.
    const incoming = json(await call({ method: 'POST', url: '/v1/webhooks', body: { direction: 'incoming', scheme: 'standard-webhooks' }, status: 201 }));
    const receive = `/v1/webhooks/${String(incoming._id)}/receive`;
    const event = JSON.stringify({ type: 'orders.paid', timestamp: new Date().toISOString(), data: { order_id: missingId } });
    const at = new Date();
    const signed = { 'webhook-id': 'msg_prism_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)) };
    await call({
      method: 'POST',
      url: receive,
      token: null,
      raw: { text: event, type: 'application/json' },
      headers: { ...signed, 'webhook-signature': new Webhook(String(incoming.secret)).sign('msg_prism_1', at, event) },
      status: 200,
    });
    await call({ method: 'POST', url: receive, token: null, raw: { text: event, type: 'application/json' }, headers: { ...signed, 'webhook-signature': 'v1,AAAA' }, status: 401 });
    await call({ method: 'GET', url: `/v1/webhooks/${String(incoming._id)}/received?per_page=10`, status: 200 });
    await call({ method: 'GET', url: `/v1/webhooks/${missingId}/received`, status: 404 });

    // API clients: a new key.
    const client = idOf(await call({ method: 'POST', url: '/v1/api-clients', body: minimalBody('api-clients', { productId: '', userId: '' }), status: 201 }));
    await call({ method: 'POST', url: `/v1/api-clients/${client}/keys`, body: { public_key: clientKeyPair().publicPem }, status: 201 });
    await call({ method: 'POST', url: `/v1/api-clients/${client}/keys`, body: {}, status: 400, invalid: true });

    // Users: export, TOTP reset, erasure.
    const user = idOf(await call({ method: 'POST', url: '/v1/users', body: { email: 'subject@example.com', first_name: 'Sue' }, status: 201 }));
    await call({ method: 'GET', url: `/v1/users/${user}/export`, status: 200 });
    await call({ method: 'GET', url: `/v1/users/${missingId}/export`, status: 404 });
    await call({ method: 'POST', url: `/v1/users/${user}/totp/reset`, status: 204 });
    await call({ method: 'POST', url: `/v1/users/${missingId}/totp/reset`, status: 404 });
    await call({ method: 'POST', url: `/v1/users/${user}/erase`, status: 200 });
    await call({ method: 'POST', url: `/v1/users/${missingId}/erase`, status: 404 });

    // Retention: what the next run would do.
    const policy = idOf(await call({ method: 'POST', url: '/v1/retention-policies', body: { category: 'bookings', retention_days: 30 }, status: 201 }));
    await call({ method: 'GET', url: `/v1/retention-policies/${policy}/preview`, status: 200 });
    await call({ method: 'GET', url: `/v1/retention-policies/${missingId}/preview`, status: 404 });
    expect(failures).toEqual([]);
  });

  it('answers the sign-in steps as documented: one-time password, TOTP and OAuth login', async () => {
    const email = 'ann@example.test';
    await createUserIn(service.h, tenant, 'parent_tenant', { email, role: 'staff' });
    const signIn = async () => {
      offset += 61_000;
      const before = smtp.messages.length;
      const started = json(await call({ method: 'POST', url: '/v1/auth/otp/start', token: null, body: { tenant_id: tenant, channel: 'email', destination: email }, status: 202 }));
      await waitFor(smtp.messages, before + 1);
      return { challenge: started.challenge_id, code: codeIn(smtp.messages.slice(before).find((m) => m.to === email)) };
    };
    await call({ method: 'POST', url: '/v1/auth/otp/start', token: null, body: { tenant_id: tenant, channel: 'pigeon', destination: email }, status: 400, invalid: true });
    const first = await signIn();
    await call({ method: 'POST', url: '/v1/auth/otp/verify', token: null, body: { challenge_id: first.challenge, code: first.code === '000000' ? '111111' : '000000' }, status: 400 });
    const otpToken = String(json(await call({ method: 'POST', url: '/v1/auth/otp/verify', token: null, body: { challenge_id: first.challenge, code: first.code }, status: 200 })).access_token);

    const enrolled = json(await call({ method: 'POST', url: '/v1/auth/totp/enroll', token: otpToken, status: 200 }));
    await call({ method: 'POST', url: '/v1/auth/totp/enroll', token: null, status: 401, invalid: true });
    const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.secret)), algorithm: 'SHA1', digits: 6, period: 30 });
    const now = () => Date.now() + offset;
    await call({ method: 'POST', url: '/v1/auth/totp/activate', token: otpToken, body: {}, status: 400, invalid: true });
    await call({ method: 'POST', url: '/v1/auth/totp/activate', token: otpToken, body: { code: totp.generate({ timestamp: now() }) }, status: 204 });
    offset += 30_000;
    await call({ method: 'POST', url: '/v1/auth/totp/step-up', token: otpToken, body: {}, status: 400, invalid: true });
    await call({ method: 'POST', url: '/v1/auth/totp/step-up', token: otpToken, body: { code: totp.generate({ timestamp: now() }) }, status: 200 });
    const second = await signIn();
    const mfa = json(await call({ method: 'POST', url: '/v1/auth/otp/verify', token: null, body: { challenge_id: second.challenge, code: second.code }, status: 200 }));
    await call({ method: 'POST', url: '/v1/auth/totp/verify', token: null, body: { mfa_token: mfa.mfa_token }, status: 400, invalid: true });
    offset += 30_000;
    const full = String(
      json(await call({ method: 'POST', url: '/v1/auth/totp/verify', token: null, body: { mfa_token: mfa.mfa_token, code: totp.generate({ timestamp: now() }) }, status: 200 })).access_token,
    );
    await call({ method: 'POST', url: '/v1/auth/totp/disable', token: full, body: {}, status: 400, invalid: true });
    offset += 30_000;
    await call({ method: 'POST', url: '/v1/auth/totp/disable', token: full, body: { code: totp.generate({ timestamp: now() }) }, status: 204 });

    // OAuth login: start, the provider, the callback through the proxy, the code for a token.
    oidc.login('ann');
    const start = `/v1/auth/oauth/local/start?${new URLSearchParams({ tenant_id: tenant, redirect_uri: appRedirect, state: 'prism-1' }).toString()}`;
    const authorization = await redirect({ method: 'GET', url: start, status: 302 });
    await call({ method: 'GET', url: `/v1/auth/oauth/local/start?redirect_uri=${encodeURIComponent(appRedirect)}`, token: null, status: 400, invalid: true });
    const returned = new URL(await oidc.authorize(authorization, `${proxy.origin}/v1/auth/oauth/local/callback`));
    const back = await redirect({ method: 'GET', url: `${returned.pathname}${returned.search}`, status: 302 });
    await call({ method: 'GET', url: '/v1/auth/oauth/local/callback?state=forged&code=x', token: null, status: 400 });
    const code = new URL(back).searchParams.get('code');
    await call({ method: 'POST', url: '/v1/auth/oauth/token', token: null, body: { code }, status: 200 });
    await call({ method: 'POST', url: '/v1/auth/oauth/token', token: null, body: { code }, status: 400 });
    expect(failures).toEqual([]);
  });

  it('answers the token endpoint and the discovery documents as documented', async () => {
    const client = await service.h.client(tenant, ['products:list']);
    const form = async (assertion: string) =>
      call({
        method: 'POST',
        url: '/v1/auth/token',
        token: null,
        raw: {
          type: 'application/x-www-form-urlencoded',
          text: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: client.clientId,
            client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
            client_assertion: assertion,
          }).toString(),
        },
        status: assertion === 'forged' ? 401 : 200,
      });
    // Dated by the service's clock, which the sign-in steps moved ahead.
    await form(await signAssertion(client.key, client.clientId, service.h.config.tokenEndpoint, { kid: client.kid, now: Math.floor((Date.now() + offset) / 1000) }));
    await form('forged');
    for (const url of ['/v1/openapi.json', '/.well-known/jwks.json', '/.well-known/oauth-authorization-server/v1', '/health', '/ready']) await call({ method: 'GET', url, token: null, status: 200 });
    for (const url of ['/v1/capabilities', '/v1/security/json', '/v1/security/questionnaire']) {
      await call({ method: 'GET', url, status: 200 });
      await call({ method: 'GET', url, token: null, status: 401, invalid: true });
    }
    expect(failures).toEqual([]);
  });

  it('called every declared action and every trailing-slash form with success and with a refusal', () => {
    const declared = actions.map((action) => `${action.method} ${openApiPath(action.path)}`);
    const aliases = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation['x-alias-of'] !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(aliases.length).toBeGreaterThan(resources.length);
    const missing = [...declared, ...aliases].flatMap((operation) => {
      const statuses = answered.get(operation) ?? [];
      const gaps = [statuses.some((s) => s < 400) ? '' : 'a success', statuses.some((s) => s >= 400 && s < 500) ? '' : 'a refusal'].filter(Boolean);
      return gaps.length > 0 ? [`${operation}: no ${gaps.join(' and no ')}`] : [];
    });
    expect(missing).toEqual([]);
  });
});
