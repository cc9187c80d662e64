import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

describe('the GDPR operations are declared actions: documented, with their capabilities', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite');
  });
  afterAll(() => h.close());

  it('appear in the OpenAPI document and the capability list', async () => {
    const doc = (await h.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.paths['/v1/users/{id}/erase'].post['x-capability']).toBe('users:erase');
    expect(doc.paths['/v1/users/{id}/export'].get['x-capability']).toBe('users:export');
    expect(doc.paths['/v1/retention-policies/{id}/preview'].get['x-capability']).toBe('retention-policies:read');
    expect(doc.paths['/v1/consents/{id}'].patch).toBeUndefined();
    const list = await h.request({ method: 'GET', url: '/v1/capabilities?per_page=100', token: await h.bearer(null, ['capabilities:list']) });
    const names = (list.json().items as { name: string }[]).map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['users:erase', 'users:export', 'retention-policies:read']));
    expect(names).not.toContain('retention-policies:preview');
  });
});
