import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { parsePrometheus, valueOf } from './prometheus-text.js';
import type { Sample } from './prometheus-text.js';

async function scrape(h: Harness): Promise<Sample[]> {
  const res = await h.app.server.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
  expect(res.statusCode, res.body).toBe(200);
  return parsePrometheus(res.body).samples;
}

function tokenForm(fields: Record<string, string>): { method: 'POST'; url: string; headers: Record<string, string>; payload: string } {
  return { method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() };
}

describe('GET /metrics on sqlite', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(() => h.close());

  it('answers the Prometheus text format with HTTP, token, rate-limit and process metrics', async () => {
    const res = await h.app.server.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const { types } = parsePrometheus(res.body);
    expect(
      Object.fromEntries(
        [
          'http_requests_total',
          'http_request_duration_seconds',
          'tokens_issued_total',
          'tokens_refused_total',
          'rate_limit_refusals_total',
          'nodejs_eventloop_lag_seconds',
          'process_cpu_user_seconds_total',
          'nodejs_heap_size_used_bytes',
        ].map((n) => [n, types.get(n)]),
      ),
    ).toEqual({
      http_requests_total: 'counter',
      http_request_duration_seconds: 'histogram',
      tokens_issued_total: 'counter',
      tokens_refused_total: 'counter',
      rate_limit_refusals_total: 'counter',
      nodejs_eventloop_lag_seconds: 'gauge',
      process_cpu_user_seconds_total: 'counter',
      nodejs_heap_size_used_bytes: 'gauge',
    });
    // SQLite has no connection pool: no pool gauges rather than made-up zeros.
    expect(types.has('db_pool_connections')).toBe(false);
  });

  it('counts requests by route pattern and status, never by raw URL', async () => {
    const token = await h.bearer(null, ['products:read']);
    const before = await scrape(h);
    const labels = { method: 'GET', route: '/v1/products/:id', status: '404' };
    for (const id of ['missing-one', 'missing-two']) {
      expect((await h.request({ method: 'GET', url: `/v1/products/${id}`, token })).statusCode).toBe(404);
    }
    expect((await h.request({ method: 'GET', url: '/no/such/path-xyz' })).statusCode).toBe(404);
    expect((await h.request({ method: 'GET', url: '/v1/products/whatever' })).statusCode).toBe(401);
    const after = await scrape(h);
    expect(valueOf(after, 'http_requests_total', labels) - valueOf(before, 'http_requests_total', labels)).toBe(2);
    expect(valueOf(after, 'http_request_duration_seconds_count', labels) - valueOf(before, 'http_request_duration_seconds_count', labels)).toBe(2);
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    expect(valueOf(after, 'http_requests_total', unmatched) - valueOf(before, 'http_requests_total', unmatched)).toBe(1);
    const refused = { method: 'GET', route: '/v1/products/:id', status: '401' };
    expect(valueOf(after, 'http_requests_total', refused) - valueOf(before, 'http_requests_total', refused)).toBe(1);
    const routes = new Set(after.filter((s) => s.name === 'http_requests_total').map((s) => s.labels.route));
    for (const route of routes) expect(route).not.toMatch(/missing|xyz|whatever/);
  });

  it('counts issued tokens and refusals by their public OAuth error code', async () => {
    const client = await h.client(null, ['products:read']);
    const before = await scrape(h);
    await h.token(client);
    expect((await h.app.server.inject(tokenForm({ grant_type: 'client_credentials' }))).statusCode).toBe(400);
    const forged = tokenForm({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln',
    });
    expect((await h.app.server.inject(forged)).statusCode).toBe(401);
    const after = await scrape(h);
    expect(valueOf(after, 'tokens_issued_total') - valueOf(before, 'tokens_issued_total')).toBe(1);
    expect(valueOf(after, 'tokens_refused_total', { reason: 'invalid_request' }) - valueOf(before, 'tokens_refused_total', { reason: 'invalid_request' })).toBe(1);
    expect(valueOf(after, 'tokens_refused_total', { reason: 'invalid_client' }) - valueOf(before, 'tokens_refused_total', { reason: 'invalid_client' })).toBe(1);
    const reasons = after.filter((s) => s.name === 'tokens_refused_total').map((s) => s.labels.reason ?? '');
    for (const reason of reasons) expect(reason).toMatch(/^[a-z_]+$/);
  });

  it('keeps each app in its own registry', async () => {
    const other = await createHarness('sqlite');
    try {
      const before = await scrape(other);
      for (let i = 0; i < 3; i += 1) await h.request({ method: 'GET', url: '/health' });
      const after = await scrape(other);
      const labels = { method: 'GET', route: '/health', status: '200' };
      expect(valueOf(after, 'http_requests_total', labels)).toBe(valueOf(before, 'http_requests_total', labels));
    } finally {
      await other.close();
    }
  });
});

describe('rate-limit refusals', () => {
  it('are counted by endpoint group', async () => {
    const h = await createHarness('sqlite', { env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_TOKEN: '2' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await h.app.server.inject(tokenForm({ grant_type: 'client_credentials' }))).statusCode);
      expect(statuses).toEqual([400, 400, 429, 429]);
      const samples = await scrape(h);
      expect(valueOf(samples, 'rate_limit_refusals_total', { group: 'token' })).toBe(2);
      expect(valueOf(samples, 'tokens_refused_total', { reason: 'invalid_request' })).toBe(2);
      expect(valueOf(samples, 'tokens_refused_total', { reason: 'rate_limited' })).toBe(2);
    } finally {
      await h.close();
    }
  });
});

describe('GET /metrics on postgres', () => {
  it('reports the connection pool', async () => {
    const h = await createHarness('postgres');
    try {
      const samples = await scrape(h);
      expect(valueOf(samples, 'db_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(samples.some((s) => s.name === 'db_pool_idle_connections')).toBe(true);
      expect(valueOf(samples, 'db_pool_waiting_requests')).toBe(0);
    } finally {
      await h.close();
    }
  });
});
