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
});
