import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionKey, actions } from '../../../src/actions/index.js';
import type { ActionDef } from '../../../src/actions/index.js';
import type { ResourceName } from '../../../src/registry/index.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { expectProblem } from '../../support/problem.js';
import { minimalBody, productBody } from '../../support/resource-bodies.js';
import { createUserIn, signInByEmail } from '../../support/user-sign-in.js';

/** docs/end-users.md "Step-up for administrative actions": the administrative actions that need `totp` in a user token's `amr`. */
const administrative = [
  ...['api-clients', 'tenants', 'webhooks', 'legal-holds', 'retention-policies'].flatMap((r) => [`${r}.create`, `${r}.update`, `${r}.delete`]),
  'users.update', // user roles
  'users.erase',
  'api-clients.rotate-key',
];
const stepUpActions = actions.filter((action) => action.stepUp);
const creatable: readonly ResourceName[] = ['api-clients', 'tenants', 'webhooks', 'legal-holds', 'retention-policies'];

/**
 * Step-up per RFC 9470 on every administrative action, over HTTP: an administrator's token
 * from a one-time password alone (`amr: ["otp"]`) is refused with 401
 * `insufficient_user_authentication` / `mfa_required`; the same user's token after the TOTP
 * step-up passes the pipeline, and the creates, the role change, the key rotation and the
 * erasure succeed.
 */
describe.each(dialects)('step-up on each administrative action on %s', (dialect) => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let tenant = '';
  let otpOnly = '';
  let stepped = '';
  let offset = 0;
  const now = () => Date.now() + offset;
  const missing = '00000000-0000-4000-8000-000000000000';

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
    tenant = await h.tenant('Step-up', 'parent_tenant');
    await createUserIn(h, tenant, 'parent_tenant', { email: 'root@step-up.test', role: 'admin' });
    const clock = { now, advance: (ms: number) => (offset += ms) };
    otpOnly = await signInByEmail(h, smtp, tenant, 'root@step-up.test', clock);
    stepped = await signInByEmail(h, smtp, tenant, 'root@step-up.test', { ...clock, totp: true });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  const url = (action: ActionDef) => action.path.replace(/:[a-z_]+/g, missing);
  const body = (action: ActionDef) => (action.method === 'DELETE' ? undefined : {});

  it('declares step-up on every administrative action of the contract', () => {
    expect(stepUpActions.map(actionKey)).toEqual(expect.arrayContaining(administrative));
  });

  it.each(stepUpActions.map((action) => [actionKey(action), action] as const))('%s: 401 insufficient_user_authentication without TOTP, through the pipeline with it', async (_key, action) => {
    const refused = await h.request({ method: action.method, url: url(action), token: otpOnly, body: body(action), headers: { 'if-match': '"x"' } });
    expectProblem(refused, 401, 'mfa_required');
    expect(refused.headers['www-authenticate']).toContain('error="insufficient_user_authentication"');
    const passed = await h.request({ method: action.method, url: url(action), token: stepped, body: body(action), headers: { 'if-match': '"x"' } });
    // Past the pipeline the handler decides: an unknown id or an empty body, never the step-up 401.
    expect(passed.statusCode, passed.body).not.toBe(401);
    expect(passed.statusCode, passed.body).toBeLessThan(500);
  });

  it('with TOTP the administrator creates each administrative resource, changes a role, rotates a key and erases a user', async () => {
    const product = await h.request({ method: 'POST', url: '/v1/products', token: stepped, body: productBody });
    expect(product.statusCode, product.body).toBe(201);
    for (const name of creatable) {
      const created = await h.request({ method: 'POST', url: `/v1/${name}`, token: stepped, body: minimalBody(name, { productId: String(product.json()._id), userId: missing }) });
      expect(created.statusCode, `${name}: ${created.body}`).toBe(201);
      if (name === 'api-clients') {
        const rotated = await h.request({
          method: 'POST',
          url: `/v1/api-clients/${created.json()._id}/keys`,
          token: stepped,
          body: { public_key: minimalBody('api-clients', { productId: '', userId: '' }).public_key },
        });
        expect(rotated.statusCode, rotated.body).toBeLessThan(300);
      }
    }
    const staff = await h.request({ method: 'POST', url: '/v1/users', token: stepped, body: { email: 'staff@step-up.test', role: 'guest' } });
    expect(staff.statusCode, staff.body).toBe(201);
    const promoted = await h.request({ method: 'PATCH', url: `/v1/users/${staff.json()._id}`, token: stepped, body: { role: 'staff' }, headers: { 'if-match': String(staff.headers.etag) } });
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect(promoted.json().role).toBe('staff');
    const erased = await h.request({ method: 'POST', url: `/v1/users/${staff.json()._id}/erase`, token: stepped });
    expect(erased.statusCode, erased.body).toBe(200);
    // The one-factor token still reads.
    expect((await h.request({ method: 'GET', url: '/v1/api-clients', token: otpOnly })).statusCode).toBe(200);
  });
});
