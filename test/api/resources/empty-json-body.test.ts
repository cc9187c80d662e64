import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

/**
 * Clients that label every request `Content-Type: application/json` send the bodiless
 * actions (docs/api.md "Bodies": "the actions that take none") with an empty body: that is
 * no body. Actions that need a body still refuse an empty one.
 */
describe.each(dialects)('an empty JSON body on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Empty bodies'), [
      ...crud('products'),
      ...crud('users'),
      'users:erase',
      'users:write:email',
      'webhooks:create',
      'webhooks:read',
      'webhooks:list',
      'webhooks:rotate-secret',
      'webhooks:retry',
      'webhooks:test',
    ]);
  });
  afterAll(() => h.close());

  /** A POST labelled JSON with no content at all (Content-Length: 0). */
  const emptyPost = (url: string, headers: Record<string, string> = {}) =>
    h.app.server.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': '0', ...headers } });

  it('is no body on the bodiless actions: erase, rotate-secret, test and a delivery retry answer as without a body', async () => {
    const user = await h.request({ method: 'POST', url: '/v1/users', token, body: { email: 'empty-body@example.com', first_name: 'Ann', last_name: 'Lee' } });
    expect(user.statusCode, user.body).toBe(201);
    const erased = await emptyPost(`/v1/users/${user.json()._id}/erase`);
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json()).toMatchObject({ user_id: user.json()._id, erased_at: expect.any(String) });

    const hook = await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: 'https://hooks.example/empty', events: ['products.created'] } });
    expect(hook.statusCode, hook.body).toBe(201);
    const hookId = hook.json()._id as string;
    const rotated = await emptyPost(`/v1/webhooks/${hookId}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    const ping = await emptyPost(`/v1/webhooks/${hookId}/test`);
    expect(ping.statusCode, ping.body).toBe(202);
    const retried = await emptyPost(`/v1/webhooks/${hookId}/deliveries/${ping.json().delivery_id}/retry`);
    expect(retried.statusCode, retried.body).toBe(202);
  });

  it('replays an Idempotency-Key sent with an empty JSON body like one sent without a body', async () => {
    const hook = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { url: 'https://hooks.example/replay', events: ['products.created'] } })).json()._id as string;
    const first = await emptyPost(`/v1/webhooks/${hook}/test`, { 'idempotency-key': 'empty-body-ping' });
    expect(first.statusCode, first.body).toBe(202);
    const again = await h.request({ method: 'POST', url: `/v1/webhooks/${hook}/test`, token, headers: { 'idempotency-key': 'empty-body-ping' } });
    expect(again.statusCode, again.body).toBe(202);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
  });

  it('stays a 400 "body: is empty" on actions that need a body, changing nothing', async () => {
    for (const answer of [await emptyPost('/v1/products'), await emptyPost('/v1/users'), await emptyPost('/v1/webhooks')]) {
      expectProblem(answer, 400, 'validation_failed');
      expect(answer.json().errors).toEqual([{ field: 'body', message: 'is empty' }]);
    }
    const product = await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Loft', address: 'a', city: 'c', zip_code: '1', total_items: 1 } });
    const patched = await h.app.server.inject({
      method: 'PATCH',
      url: `/v1/products/${product.json()._id}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': '0', 'if-match': String(product.headers.etag) },
    });
    expectProblem(patched, 400, 'validation_failed');
    expect(patched.json().errors).toEqual([{ field: 'body', message: 'is empty' }]);
    expect((await h.request({ method: 'GET', url: `/v1/products/${product.json()._id}`, token })).headers.etag).toBe(product.headers.etag);
  });

  it('stays a 400 on an incoming webhook, whose signature is over the body', async () => {
    const hook = (await h.request({ method: 'POST', url: '/v1/webhooks', token, body: { direction: 'incoming', scheme: 'standard-webhooks' } })).json()._id as string;
    const answer = await h.app.server.inject({ method: 'POST', url: `/v1/webhooks/${hook}/receive`, headers: { 'content-type': 'application/json', 'content-length': '0' } });
    expectProblem(answer, 400, 'validation_failed');
    expect(answer.json().errors).toEqual([{ field: 'body', message: expect.any(String) }]);
  });
});
