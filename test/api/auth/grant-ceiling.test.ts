import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleCapabilities } from '../../../src/actions/roles.js';
import type { Principal } from '../../../src/core/principal.js';
import { getResource } from '../../../src/registry/index.js';
import { TenantDirectory } from '../../../src/security/tenant-directory.js';
import { checkUserControl } from '../../../src/services/grant-ceiling.js';
import { createAuthHarness } from '../../support/auth-harness.js';
import type { AuthHarness } from '../../support/auth-harness.js';
import { dialects } from '../../support/databases.js';
import type { TestClient } from '../../support/harness.js';
import { clientKeyPair } from '../../support/keys.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { expectProblem } from '../../support/problem.js';
import { createUserIn, signInByEmail } from '../../support/user-sign-in.js';

/**
 * The grant ceiling (security audit findings 1 and 2): a caller can neither grant nor take
 * control of more than it holds — not by re-keying, disabling or deleting a stronger API
 * client, nor by giving a user (itself included) a role with capabilities it lacks.
 */
describe.each(dialects)('grant ceiling on %s', (dialect) => {
  let h: AuthHarness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let tenant: string;
  let auditor: string;
  // The service's clock: each sign-in and each TOTP code moves it on (cooldown, time steps).
  let offset = 0;
  const now = () => Date.now() + offset;

  /** What the audit's client `mini` held: it may manage clients, but holds little else. */
  const manager = ['api-clients:read', 'api-clients:update', 'api-clients:rotate-key', 'api-clients:delete', 'products:list'];
  let mini: string;

  const get = (url: string, token: string) => h.request({ method: 'GET', url, token });
  const trail = async (id: string, action: string) => (await get(`/v1/audit-logs/?record_id=${id}&action=${action}`, auditor)).json().items as unknown[];
  const etagOf = async (url: string, token: string) => String((await get(url, token)).headers.etag);
  const patch = async (url: string, token: string, body: Record<string, unknown>) => h.request({ method: 'PATCH', url, token, body, headers: { 'if-match': await etagOf(url, token) } });
  const remove = async (url: string, token: string) => h.request({ method: 'DELETE', url, token, headers: { 'if-match': await etagOf(url, token) } });

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createAuthHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
    tenant = await h.tenant('Acme');
    auditor = await h.bearer(tenant, ['audit-logs:list']);
    mini = await h.bearer(tenant, manager);
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  describe('API clients', () => {
    const stronger = () => h.client(tenant, [...manager, 'products:delete', 'users:erase']);
    const canSignIn = async (client: TestClient) => (await h.tokenRequest(await h.assertionForm(client))).statusCode;

    it('refuses adding a key to a client holding more (403 naming what is missing); the attacker key gets no token and nothing is audited', async () => {
      const victim = await stronger();
      const url = `/v1/api-clients/${victim.clientId}`;
      const before = await get(url, mini);
      const attacker = clientKeyPair();
      const res = await h.request({ method: 'POST', url: `${url}/keys`, token: mini, body: { public_key: attacker.publicPem, kid: 'attacker-kid' } });
      const problem = expectProblem(res, 403, 'insufficient_scope');
      expect(problem.detail).toBe('A caller cannot manage a client holding capabilities it lacks: products:delete, users:erase');
      expect(problem.errors).toEqual([
        { field: 'capabilities', message: 'caller lacks products:delete' },
        { field: 'capabilities', message: 'caller lacks users:erase' },
      ]);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="booking-api", error="insufficient_scope", scope="products:delete users:erase"');
      expect(await canSignIn({ ...victim, key: attacker, kid: 'attacker-kid' })).toBe(401);
      const after = await get(url, mini);
      expect({ etag: after.headers.etag, keys: after.json().keys }).toEqual({ etag: before.headers.etag, keys: before.json().keys });
      expect(await trail(victim.clientId, 'rotate-key')).toEqual([]);
    });

    it.each([
      ['disable it', { disabled: true }],
      ['lock it out with an allowlist', { ip_allowlist: ['192.0.2.0/24'] }],
      ['rename it', { name: 'mine now' }],
    ])('refuses a PATCH to %s when it holds more, and leaves it working', async (_what, body) => {
      const victim = await stronger();
      const url = `/v1/api-clients/${victim.clientId}`;
      const etag = await etagOf(url, mini);
      const res = await h.request({ method: 'PATCH', url, token: mini, body, headers: { 'if-match': etag } });
      expect(expectProblem(res, 403, 'insufficient_scope').detail).toContain('products:delete, users:erase');
      expect(await etagOf(url, mini)).toBe(etag);
      expect(await canSignIn(victim)).toBe(200);
      expect(await trail(victim.clientId, 'update')).toEqual([]);
    });

    it('refuses deleting a client holding more', async () => {
      const victim = await stronger();
      const url = `/v1/api-clients/${victim.clientId}`;
      expect(expectProblem(await remove(url, mini), 403, 'insufficient_scope').detail).toContain('products:delete, users:erase');
      expect((await get(url, mini)).statusCode).toBe(200);
      expect(await canSignIn(victim)).toBe(200);
      expect(await trail(victim.clientId, 'delete')).toEqual([]);
    });

    it('lets a caller re-key, change and delete a weaker or an equal client', async () => {
      for (const capabilities of [['products:list'], manager]) {
        const target = await h.client(tenant, capabilities);
        const url = `/v1/api-clients/${target.clientId}`;
        const next = clientKeyPair();
        const added = await h.request({ method: 'POST', url: `${url}/keys`, token: mini, body: { public_key: next.publicPem, kid: 'next' } });
        expect(added.statusCode, added.body).toBe(201);
        expect(await canSignIn({ ...target, key: next, kid: 'next' })).toBe(200);
        expect((await patch(url, mini, { ip_allowlist: ['127.0.0.0/8'] })).statusCode).toBe(200);
        expect((await patch(url, mini, { disabled: true })).statusCode).toBe(200);
        expect((await remove(url, mini)).statusCode).toBe(204);
      }
    });
  });

  describe('end-user roles', () => {
    const people: Record<string, string> = {};
    const tokens: Record<string, string> = {};
    let serial = 0;
    const user = (role: string) => createUserIn(h, tenant, 'tenant', { email: `u${++serial}@users.test`, role });
    const signIn = (email: string) => signInByEmail(h, smtp, tenant, email, { totp: true, now, advance: (ms) => (offset += ms) });
    const adminOnly = roleCapabilities.admin.filter((c) => !roleCapabilities.staff.includes(c));

    beforeAll(async () => {
      // Client tokens first: each sign-in moves the service's clock past fresh assertions.
      tokens.noAdmin = await h.bearer(tenant, [...roleCapabilities.staff, 'users:write:email', 'users:delete']);
      tokens.staffLike = await h.bearer(tenant, [...roleCapabilities.staff, 'users:write:email']);
      tokens.narrow = await h.bearer(tenant, ['users:create', 'users:update', 'users:read', 'users:write:email']);
      tokens.eraser = await h.bearer(tenant, ['users:erase', 'users:read', 'users:read:email']);
      for (const role of ['staff', 'admin'] as const) {
        people[role] = await createUserIn(h, tenant, 'tenant', { email: `${role}@users.test`, role });
        // With TOTP (step-up): user writes are administrative.
        tokens[role] = await signIn(`${role}@users.test`);
      }
    });

    const roleOf = async (id: string) => (await get(`/v1/users/${id}`, tokens.admin as string)).json().role as string;

    it('refuses a staff user making itself admin', async () => {
      const res = await patch(`/v1/users/${people.staff}`, tokens.staff as string, { role: 'admin' });
      const problem = expectProblem(res, 403, 'insufficient_scope');
      expect(problem.detail).toMatch(/^A user cannot be given the role admin, whose capabilities the caller lacks: .*api-clients:create/);
      expect(problem.errors?.every((e) => e.field === 'role')).toBe(true);
      expect(res.headers['www-authenticate']).toContain('users:erase');
      expect(await roleOf(people.staff as string)).toBe('staff');
      expect(await trail(people.staff as string, 'update')).toEqual([]);
    });

    it('refuses a staff user making another user admin', async () => {
      const guest = await user('guest');
      expectProblem(await patch(`/v1/users/${guest}`, tokens.staff as string, { role: 'admin' }), 403, 'insufficient_scope');
      expect(await roleOf(guest)).toBe('guest');
      expect(await trail(guest, 'update')).toEqual([]);
    });

    it('refuses a staff user changing an admin, the role or anything else', async () => {
      const admin = await user('admin');
      const res = await patch(`/v1/users/${admin}`, tokens.staff as string, { first_name: 'Mallory' });
      expect(expectProblem(res, 403, 'insufficient_scope').detail).toMatch(/^A caller cannot manage a user with the role admin, whose capabilities it lacks: /);
      expectProblem(await patch(`/v1/users/${admin}`, tokens.staff as string, { role: 'guest' }), 403, 'insufficient_scope');
      expect(await roleOf(admin)).toBe('admin');
    });

    it('refuses a client lacking admin capabilities creating, changing or deleting an admin', async () => {
      const client = tokens.noAdmin as string;
      const created = await h.request({ method: 'POST', url: '/v1/users', token: client, body: { email: 'minted@users.test', role: 'admin', external_id: 'minted-admin' } });
      const problem = expectProblem(created, 403, 'insufficient_scope');
      expect(problem.errors?.map((e) => e.message)).toEqual(adminOnly.filter((c) => c !== 'users:delete' && c !== 'users:write:email').map((c) => `caller lacks ${c}`));
      expect((await get('/v1/users?external_id=minted-admin', tokens.admin as string)).json().total).toBe(0);
      const admin = await user('admin');
      expectProblem(await patch(`/v1/users/${admin}`, client, { status: 'disabled' }), 403, 'insufficient_scope');
      expectProblem(await remove(`/v1/users/${admin}`, client), 403, 'insufficient_scope');
      expect((await get(`/v1/users/${admin}`, tokens.admin as string)).json()).toMatchObject({ role: 'admin', status: 'active' });
    });

    it('refuses a client lacking admin capabilities erasing an admin, and lets it erase a guest', async () => {
      const eraser = tokens.eraser as string;
      const admin = await user('admin');
      const refused = await h.request({ method: 'POST', url: `/v1/users/${admin}/erase`, token: eraser });
      expect(expectProblem(refused, 403, 'insufficient_scope').detail).toMatch(/^A caller cannot manage a user with the role admin, whose capabilities it lacks: .*api-clients:create/);
      const kept = (await get(`/v1/users/${admin}`, eraser)).json();
      expect(kept).toMatchObject({ role: 'admin', status: 'active', erased_at: null });
      expect(kept.email).toMatch(/@users\.test$/);
      expect(await trail(admin, 'erase')).toEqual([]);

      const guest = await user('guest');
      const erased = await h.request({ method: 'POST', url: `/v1/users/${guest}/erase`, token: eraser });
      expect(erased.statusCode, erased.body).toBe(200);
      expect((await get(`/v1/users/${guest}`, eraser)).json()).toMatchObject({ status: 'disabled' });
    });

    it('checks control again on the row the unit of work writes: a user promoted after the executor’s check is not changed', async () => {
      const target = await user('staff');
      const scope = await new TenantDirectory(h.database).resolve(tenant);
      if (!scope) throw new Error('no scope');
      const principal: Principal = { actorType: 'client', actorId: 'racer', capabilities: new Set([...roleCapabilities.staff, 'users:write:email']), home: scope, scope, unrestricted: false };
      // The executor's check passed on a staff user (the call carries its target); then an administrator promotes the user.
      expect((await patch(`/v1/users/${target}`, tokens.admin as string, { role: 'admin' })).statusCode).toBe(200);
      const etag = await etagOf(`/v1/users/${target}`, tokens.admin as string);
      const context = { principal, clientIp: null, requestId: null, target: { resource: 'users', id: target, check: checkUserControl } };
      await expect(h.app.resources.update(context, getResource('users'), target, etag, { email: 'mallory@evil.test' })).rejects.toMatchObject({ code: 'insufficient_scope' });
      await expect(h.app.resources.remove(context, getResource('users'), target, etag)).rejects.toMatchObject({ code: 'insufficient_scope' });
      expect((await get(`/v1/users/${target}`, tokens.admin as string)).json()).toMatchObject({ role: 'admin', email: expect.stringMatching(/@users\.test$/) });
      expect(await trail(target, 'delete')).toEqual([]);
    });

    it('lets a staff user manage guests and staff', async () => {
      const guest = await user('guest');
      expect((await patch(`/v1/users/${guest}`, tokens.staff as string, { first_name: 'Gus' })).statusCode).toBe(200);
      expect((await patch(`/v1/users/${guest}`, tokens.staff as string, { role: 'staff' })).statusCode).toBe(200);
      expect((await patch(`/v1/users/${guest}`, tokens.staff as string, { role: 'guest' })).statusCode).toBe(200);
      expect((await patch(`/v1/users/${people.staff}`, tokens.staff as string, { first_name: 'Stef' })).statusCode).toBe(200);
      expect(await roleOf(guest)).toBe('guest');
    });

    it('lets a client create a user of a role it holds, and plain guests with users:create alone', async () => {
      const staffLike = tokens.staffLike as string;
      const staff = await h.request({ method: 'POST', url: '/v1/users', token: staffLike, body: { email: 'hired@users.test', role: 'staff' } });
      expect(staff.statusCode, staff.body).toBe(201);
      const narrow = tokens.narrow as string;
      const guest = await h.request({ method: 'POST', url: '/v1/users', token: narrow, body: { email: 'plain@users.test' } });
      expect(guest.statusCode, guest.body).toBe(201);
      expect(expectProblem(await patch(`/v1/users/${guest.json()._id}`, narrow, { role: 'staff' }), 403, 'insufficient_scope').detail).toContain('products:create');
      expect((await patch(`/v1/users/${guest.json()._id}`, narrow, { first_name: 'Plain' })).statusCode).toBe(200);
    });

    it('lets an admin create, promote, demote and delete staff', async () => {
      const created = await h.request({ method: 'POST', url: '/v1/users', token: tokens.admin as string, body: { email: 'new.staff@users.test', role: 'staff' } });
      expect(created.statusCode, created.body).toBe(201);
      const url = `/v1/users/${created.json()._id}`;
      expect((await patch(url, tokens.admin as string, { role: 'admin' })).statusCode).toBe(200);
      expect((await patch(url, tokens.admin as string, { role: 'staff' })).statusCode).toBe(200);
      expect((await remove(url, tokens.admin as string)).statusCode).toBe(204);
    });
  });
});
