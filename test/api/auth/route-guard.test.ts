import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installRouteGuard } from '../../../src/security/pipeline.js';
import '../../../src/security/route-config.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

describe('deny by default at registration', () => {
  it('refuses to register a route without a capability or public flag', async () => {
    const app = Fastify();
    installRouteGuard(app);
    expect(() => app.get('/v1/open', async () => 'x')).toThrow(/declares neither/);
    expect(() => app.get('/v1/typo', { config: { capability: 'products:reed' } }, async () => 'x')).toThrow(/unknown capability/);
    expect(() => app.get('/v1/both', { config: { capability: 'products:read', public: true } }, async () => 'x')).toThrow(/public and also/);
    app.get('/v1/ok', { config: { capability: 'products:read' } }, async () => 'x');
    await app.close();
  });

  describe('in the assembled service', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await createHarness('sqlite');
    });
    afterAll(() => h.close());

    it('has every route declaring a known capability, any signed-in user, or public', () => {
      const routes = h.app.routes.routes;
      expect(routes.length).toBeGreaterThan(60);
      for (const route of routes) {
        const config = route.config;
        expect(typeof config.capability === 'string' || config.public === true || config.anyUser === true, `${route.method} ${route.url}`).toBe(true);
      }
    });

    it('answers 401 on every protected route without a token', async () => {
      const protectedRoutes = h.app.routes.routes.filter((r) => r.config.public !== true);
      for (const route of protectedRoutes) {
        const res = await h.request({ method: route.method, url: route.url.replace(':id', '00000000-0000-7000-8000-000000000000') });
        expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
      }
    });
  });
});
