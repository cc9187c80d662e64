import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { buildOpenApi } from '../../../src/routes/openapi-document.js';
import { deprecationHeaders, installDeprecation } from '../../../src/http/deprecation.js';
import '../../../src/security/route-config.js';

const notice = { since: '2026-01-01T00:00:00Z', sunset: '2027-01-01T00:00:00Z', link: 'https://booking.example/changelog#v1-bookings' };

describe('deprecation headers', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = Fastify();
    installDeprecation(app);
    app.get('/v1/old', { config: { public: true, deprecated: notice } }, async (_request, reply) => reply.header('link', '<http://api.test/v1/old?page=2>; rel="next"').send({ ok: true }));
    app.get('/v1/old-failing', { config: { public: true, deprecated: { since: notice.since, sunset: notice.sunset } } }, async () => {
      throw Object.assign(new Error('boom'), { statusCode: 400 });
    });
    app.get('/v1/current', { config: { public: true } }, async () => ({ ok: true }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('announce a deprecated route with RFC 9745 Deprecation, RFC 8594 Sunset and a deprecation link', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/old' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('@1767225600');
    expect(res.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(res.headers.link).toBe('<http://api.test/v1/old?page=2>; rel="next", <https://booking.example/changelog#v1-bookings>; rel="deprecation"; type="text/html"');
  });

  it('are sent on error responses too, and on HEAD', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/old-failing' });
    expect(res.statusCode).toBe(400);
    expect(res.headers.deprecation).toBe('@1767225600');
    expect(res.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(res.headers.link).toBeUndefined();
    const head = await app.inject({ method: 'HEAD', url: '/v1/old' });
    expect(head.headers.deprecation).toBe('@1767225600');
  });

  it('are absent from routes that are not deprecated', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/current' });
    expect(res.headers.deprecation).toBeUndefined();
    expect(res.headers.sunset).toBeUndefined();
  });

  it('refuse a malformed notice when the route is registered, not on its first response', async () => {
    expect(() => deprecationHeaders({ since: 'soon', sunset: notice.sunset })).toThrow(/since "soon" is not a date/);
    expect(() => deprecationHeaders({ since: notice.sunset, sunset: notice.since })).toThrow(/precedes/);
    const broken = Fastify();
    installDeprecation(broken);
    expect(() => broken.get('/v1/x', { config: { public: true, deprecated: { since: notice.since, sunset: 'never' } } }, async () => ({}))).toThrow(/sunset "never"/);
    await broken.close();
  });
});

describe('deprecated operations in the OpenAPI document', () => {
  const config = loadConfig({ PUBLIC_URL: 'http://api.test' });
  const doc = buildOpenApi(config, [
    { method: 'GET', url: '/v1/products', config: { capability: 'products:list', deprecated: notice } },
    { method: 'GET', url: '/v1/products/:id', config: { capability: 'products:read' } },
  ]);

  it('are marked deprecated, with the headers their responses carry', async () => {
    const list = doc.paths['/v1/products']?.get;
    expect(list?.deprecated).toBe(true);
    expect(list?.description).toContain('sunset 2027-01-01T00:00:00Z');
    expect(list?.responses[200]?.headers).toMatchObject({ Deprecation: { $ref: '#/components/headers/Deprecation' }, Sunset: { $ref: '#/components/headers/Sunset' } });
    expect(doc.paths['/v1/products/{id}']?.get?.deprecated).toBeUndefined();
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });
});
