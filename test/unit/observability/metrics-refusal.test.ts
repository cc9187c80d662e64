import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';
import { MetricsAccess } from '../../../src/observability/metrics-access.js';

/** What `check` reads of a request: its headers and its address. */
function request(ip: string): FastifyRequest {
  return { headers: {}, ip } as unknown as FastifyRequest;
}

function refusal(access: MetricsAccess, ip: string): ApiError {
  try {
    access.check(request(ip));
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`${ip} was let through`);
}

describe('the 403 of /metrics speaks to whoever reaches it: a scraper is no API client', () => {
  it.each([
    ['an address outside METRICS_ALLOW', new MetricsAccess({ metricsToken: undefined, metricsAllow: ['127.0.0.1/32'] })],
    ['no METRICS_ALLOW and no METRICS_TOKEN (closed)', new MetricsAccess({ metricsToken: undefined, metricsAllow: [] })],
  ])('%s: 403 ip_not_allowed, its title and detail about the address, not a client', (_case, access) => {
    const error = refusal(access, '203.0.113.9');
    expect([error.status, error.code]).toEqual([403, 'ip_not_allowed']);
    expect(error.title).toBe('The source address is not allowed');
    expect(error.message).toBe('Metrics are not served to this address');
    expect(`${error.title} ${error.message}`).not.toMatch(/client/i);
  });
});
