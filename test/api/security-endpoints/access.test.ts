import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';
import { ensureSbom } from './ensure-sbom.js';

const endpoints = ['/v1/security/json', '/v1/security/sbom', '/v1/security/questionnaire'];

describe('/v1/security/* needs security:read', () => {
  let h: Harness;
  beforeAll(async () => {
    ensureSbom();
    h = await createHarness('sqlite');
  });
  afterAll(() => h.close());

  it('401 with a challenge without a token', async () => {
    for (const url of endpoints) {
      const res = await h.request({ method: 'GET', url });
      expectProblem(res, 401, 'unauthenticated');
      expect(res.headers['www-authenticate'], url).toMatch(/^Bearer /);
    }
  });

  it('403 insufficient_scope with a token lacking the capability', async () => {
    const token = await h.bearer(null, ['products:read', 'capabilities:list']);
    for (const url of endpoints) {
      const res = await h.request({ method: 'GET', url, token });
      expectProblem(res, 403, 'insufficient_scope');
      expect(res.headers['www-authenticate'], url).toContain('error="insufficient_scope"');
    }
  });

  it('200 with security:read, from any tenant level, never cached', async () => {
    const tenant = await h.tenant('reviewer');
    for (const token of [await h.bearer(null, ['security:read']), await h.bearer(tenant, ['security:read'])]) {
      for (const url of endpoints) {
        const res = await h.request({ method: 'GET', url, token });
        expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
        expect(res.headers['cache-control'], url).toBe('no-store');
      }
    }
  });
});
