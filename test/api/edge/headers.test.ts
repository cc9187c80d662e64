import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

describe('security headers', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await createHarness('sqlite');
    token = await h.bearer(null, ['products:list']);
  });
  afterAll(() => h.close());

  it('sets HSTS, nosniff, frame denial, no referrer and a deny-all CSP on API responses', async () => {
    for (const res of [await h.request({ method: 'GET', url: '/health' }), await h.request({ method: 'GET', url: '/v1/products', token }), await h.request({ method: 'GET', url: '/v1/nope' })]) {
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('marks authenticated and refused responses no-store', async () => {
    expect((await h.request({ method: 'GET', url: '/v1/products', token })).headers['cache-control']).toBe('no-store');
    expect((await h.request({ method: 'GET', url: '/v1/products' })).headers['cache-control']).toBe('no-store');
    expect((await h.request({ method: 'GET', url: '/.well-known/jwks.json' })).headers['cache-control']).toContain('max-age');
  });

  it('sends no CORS headers unless origins are configured', async () => {
    const res = await h.request({ method: 'GET', url: '/v1/products', token, headers: { origin: 'https://evil.example' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await h.request({ method: 'OPTIONS', url: '/v1/products', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS when origins are configured', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await createHarness('sqlite', { env: { CORS_ORIGINS: 'https://app.example' } });
    token = await h.bearer(null, ['products:list']);
  });
  afterAll(() => h.close());

  it('answers preflights and exposes headers for the allowed origin only', async () => {
    const preflight = await h.request({
      method: 'OPTIONS',
      url: '/v1/products',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,if-match' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('If-Match');
    const res = await h.request({ method: 'GET', url: '/v1/products', token, headers: { origin: 'https://app.example' } });
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(String(res.headers['access-control-expose-headers'])).toContain('ETag');
    const other = await h.request({ method: 'GET', url: '/v1/products', token, headers: { origin: 'https://evil.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a browser send every request header and read every response header the API documents', async () => {
    type Header = { in?: string; name?: string; $ref?: string };
    const doc = (await h.request({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: Header[]; responses?: Record<string, { headers?: Record<string, unknown>; $ref?: string }> }>>;
      components: { parameters?: Record<string, Header>; responses?: Record<string, { headers?: Record<string, unknown> }> };
    };
    const resolve = <T>(value: T & { $ref?: string }, section: Record<string, T> | undefined): T | undefined => (value.$ref ? section?.[value.$ref.split('/').pop() ?? ''] : value);
    const sent = new Set<string>();
    const read = new Set<string>();
    for (const item of Object.values(doc.paths)) {
      for (const operation of Object.values(item)) {
        for (const parameter of operation.parameters ?? []) {
          const resolved = resolve(parameter, doc.components.parameters);
          if (resolved?.in === 'header' && resolved.name) sent.add(resolved.name.toLowerCase());
        }
        for (const response of Object.values(operation.responses ?? {})) {
          for (const name of Object.keys(resolve(response, doc.components.responses)?.headers ?? {})) read.add(name.toLowerCase());
        }
      }
    }
    expect([...sent]).toContain('idempotency-key');
    expect([...read]).toContain('idempotency-replayed');
    const preflight = await h.request({
      method: 'OPTIONS',
      url: '/v1/products',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': [...sent].join(',') },
    });
    const allowed = String(preflight.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    expect([...sent].filter((name) => !allowed.includes(name))).toEqual([]);
    // CORS-safelisted response headers are readable without being exposed.
    const safelisted = ['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma'];
    const res = await h.request({ method: 'GET', url: '/v1/products', token, headers: { origin: 'https://app.example' } });
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
    expect([...read].filter((name) => !safelisted.includes(name) && !exposed.includes(name))).toEqual([]);
  });
});
