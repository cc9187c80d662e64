import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

const secret = 'metrics-secret-0123456789abcdef';
const outside = '203.0.113.9';

function scrape(h: Harness, remoteAddress: string, authorization?: string) {
  return h.app.server.inject({ method: 'GET', url: '/metrics', remoteAddress, headers: authorization ? { authorization } : {} });
}

async function withHarness(env: Record<string, string>, fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await createHarness('sqlite', { env });
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

describe('/metrics access', () => {
  it('by default serves loopback only and refuses other addresses with 403', async () => {
    await withHarness({}, async (h) => {
      expect((await scrape(h, '127.0.0.1')).statusCode).toBe(200);
      expect((await scrape(h, '::1')).statusCode).toBe(200);
      expectProblem(await scrape(h, outside), 403, 'ip_not_allowed');
    });
  });

  it('with METRICS_TOKEN: 401 without or with a wrong token, 200 with it from anywhere', async () => {
    await withHarness({ METRICS_TOKEN: secret }, async (h) => {
      const missing = await scrape(h, outside);
      expectProblem(missing, 401, 'unauthenticated');
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      const wrong = await scrape(h, outside, `Bearer ${secret}x`);
      expectProblem(wrong, 401, 'invalid_token');
      expect(wrong.headers['www-authenticate']).toContain('error="invalid_token"');
      expect((await scrape(h, outside, `Bearer ${secret}`)).statusCode).toBe(200);
      expect((await scrape(h, outside, `bearer ${secret}`)).statusCode).toBe(200);
      // A presented credential is judged even from an allowed network: a wrong one is loud.
      expectProblem(await scrape(h, '127.0.0.1', 'Bearer wrong-token-value-000000'), 401, 'invalid_token');
    });
  });

  it('does not accept an API access token in place of the metrics token', async () => {
    await withHarness({ METRICS_TOKEN: secret }, async (h) => {
      const token = await h.bearer(null, ['security:read']);
      expectProblem(await scrape(h, outside, `Bearer ${token}`), 401, 'invalid_token');
    });
  });

  it('METRICS_ALLOW replaces the default networks; empty allows none', async () => {
    await withHarness({ METRICS_ALLOW: '203.0.113.0/24' }, async (h) => {
      expect((await scrape(h, outside)).statusCode).toBe(200);
      expectProblem(await scrape(h, '127.0.0.1'), 403, 'ip_not_allowed');
    });
    await withHarness({ METRICS_ALLOW: '', METRICS_TOKEN: secret }, async (h) => {
      expectProblem(await scrape(h, '127.0.0.1'), 401, 'unauthenticated');
      expect((await scrape(h, '127.0.0.1', `Bearer ${secret}`)).statusCode).toBe(200);
    });
  });

  it('judges the client address after the TRUST_PROXY rule', async () => {
    await withHarness({ TRUST_PROXY: '127.0.0.1/32' }, async (h) => {
      const forwarded = await h.app.server.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': outside } });
      expectProblem(forwarded, 403, 'ip_not_allowed');
    });
  });

  it('reads the token from METRICS_TOKEN_FILE and refuses weak or malformed settings at boot', () => {
    const config = loadConfig({ METRICS_TOKEN_FILE: '/run/secrets/metrics' }, (path) => (path === '/run/secrets/metrics' ? `${secret}\n` : ''));
    expect(config.metricsToken).toBe(secret);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be at least 16 characters/);
    expect(() => loadConfig({ METRICS_ALLOW: '10.0.0.0/33' })).toThrow(/METRICS_ALLOW/);
    expect(loadConfig({}).metricsAllow).toEqual(['127.0.0.1/32', '::1/128']);
  });
});
