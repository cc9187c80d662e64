import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { findAction } from '../../../src/actions/index.js';
import type { ActionDef } from '../../../src/actions/index.js';
import type { ActionServices } from '../../../src/handlers/index.js';
import { serializerSchema } from '../../../src/derive/response-serializers.js';
import { actionRoute } from '../../../src/routes/actions.js';

/** The route of action `key` with a handler that answers `body`: the compiled serialiser is what is under test. */
async function serialise(key: string, body: unknown): Promise<unknown> {
  const declared = findAction(key) as ActionDef;
  const app = Fastify();
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request) => {
    request.principal = {
      actorType: 'system',
      actorId: 'system',
      capabilities: new Set(),
      home: { nodeId: null, level: 'system', path: '/' },
      scope: { nodeId: null, level: 'system', path: '/' },
      unrestricted: true,
    };
  });
  app.route(actionRoute(declared, {} as ActionServices, undefined, async () => ({ status: declared.method === 'POST' ? 201 : 200, body })));
  const response = await app.inject({ method: declared.method, url: declared.path.replace(':id', 'x'), ...(declared.method === 'POST' ? { payload: {} } : {}) });
  await app.close();
  return response.json();
}

describe('compiled response serialisers', () => {
  it('write only the fields the API declares: a stray column never reaches the client', async () => {
    const body = await serialise('products.read', { _id: 'p1', name: 'Loft', total_items: 3, is_published: true, etag: '"x"', deleted_at: null, path: '/a/' });
    expect(body).toEqual({ _id: 'p1', name: 'Loft', total_items: 3, is_published: true });
  });

  it('keep free-form objects whole (audit values) and nested declared objects (client keys)', async () => {
    const entry = { _id: 'a1', action: 'update', old_values: { city: 'Berlin', nested: { n: 1 } }, new_values: null };
    expect(await serialise('audit-logs.read', entry)).toEqual(entry);
    const client = { _id: 'c1', name: 'x', keys: [{ kid: 'k', alg: 'ES256', thumbprint: 't', created_at: '2026-01-01T00:00:00.000Z', active_until: null, jwk: { d: 'private?' } }] };
    expect(await serialise('api-clients.read', client)).toEqual({
      _id: 'c1',
      name: 'x',
      keys: [{ kid: 'k', alg: 'ES256', thumbprint: 't', created_at: '2026-01-01T00:00:00.000Z', active_until: null }],
    });
  });

  it('serialise list envelopes and omit absent (sensitive, unselected) fields instead of failing', async () => {
    const body = await serialise('users.list', { items: [{ _id: 'u1' }, { _id: 'u2', role: 'guest', password: 'never' }], total: 2, page: 1, per_page: 10 });
    expect(body).toEqual({ items: [{ _id: 'u1' }, { _id: 'u2', role: 'guest' }], total: 2, page: 1, per_page: 10 });
  });

  it('resolve every schema reference', () => {
    expect(JSON.stringify(serializerSchema('ApiClientsRecord'))).not.toContain('$ref');
    expect(() => serializerSchema('NoSuchSchema')).toThrow('no component schema NoSuchSchema');
  });
});
