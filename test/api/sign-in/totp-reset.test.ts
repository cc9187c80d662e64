import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { sql, TableNode, UpdateQueryNode } from 'kysely';
import type { KyselyPlugin } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleCapabilities } from '../../../src/actions/roles.js';
import { buildApp } from '../../../src/app.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { codeIn, startSmtp, waitFor } from '../../support/mail-and-sms.js';
import { eventually } from '../../support/poll.js';
import { expectProblem } from '../../support/problem.js';
import { createUserIn, signInByEmail } from '../../support/user-sign-in.js';

/**
 * `POST /v1/users/{id}/totp/reset`: the way back in for a user who lost the authenticator
 * and the recovery codes. The enrolment, its recovery codes and its lock-out go in one
 * transaction with the audit entries; the user then signs in with a one-time password
 * alone. Bounded by the grant ceiling like every write on a user.
 */
describe.each(dialects)('TOTP reset by an administrator on %s', (dialect) => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let tenant = '';
  let other = '';
  let resetter = '';
  let narrow = '';
  let auditor = '';
  let updater = '';
  let serial = 0;
  let offset = 0;
  const now = () => Date.now() + offset;
  const clock = { now, advance: (ms: number) => (offset += ms) };

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
    tenant = await h.tenant('Reset');
    other = await h.tenant('Elsewhere');
    // Client tokens first: each sign-in moves the service's clock past fresh assertions.
    resetter = await h.bearer(tenant, [...roleCapabilities.admin]);
    narrow = await h.bearer(tenant, ['users:reset-totp', 'users:read']);
    auditor = await h.bearer(tenant, ['audit-logs:list']);
    updater = await h.bearer(tenant, ['users:read', 'users:update']);
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  const user = async (role: string, where = tenant) => {
    const email = `u${++serial}@reset.test`;
    return { id: await createUserIn(h, where, 'tenant', { email, role }), email };
  };
  const reset = (id: string, token: string) => h.request({ method: 'POST', url: `/v1/users/${id}/totp/reset`, token });
  const read = (id: string) => h.request({ method: 'GET', url: `/v1/users/${id}`, token: resetter });
  const trail = async (id: string) =>
    (await h.request({ method: 'GET', url: `/v1/audit-logs/?record_id=${id}&sort=_id`, token: auditor })).json().items as {
      action: string;
      actor_type: string;
      actor_id: string;
      new_values: unknown;
    }[];
  const totpRow = (id: string) => h.database.db.selectFrom('user_totp').selectAll().where('user_id', '=', id).executeTakeFirst();

  /** The first factor of a sign-in: a token, or the `mfa_token` when TOTP is on. */
  const firstFactor = async (email: string, where = tenant) => {
    clock.advance(61_000);
    const before = smtp.messages.length;
    const started = await h.request({ method: 'POST', url: '/v1/auth/otp/start', body: { tenant_id: where, channel: 'email', destination: email } });
    await waitFor(smtp.messages, before + 1);
    const code = codeIn(smtp.messages.slice(before).find((m) => m.to === email));
    return (await h.request({ method: 'POST', url: '/v1/auth/otp/verify', body: { challenge_id: started.json().challenge_id, code } })).json() as Record<string, unknown>;
  };

  it('removes an active enrolment, its recovery codes and its lock-out: the user signs in with a one-time password alone', async () => {
    const staff = await user('staff');
    await signInByEmail(h, smtp, tenant, staff.email, { ...clock, totp: true });
    // Locked after wrong codes, and the recovery codes lost too.
    await h.database.db
      .updateTable('user_totp')
      .set({ failed_tries: 9, locked_until: now() + 86_400_000 })
      .where('user_id', '=', staff.id)
      .execute();
    const pending = (await firstFactor(staff.email)).mfa_token;
    expect(pending).toEqual(expect.any(String));
    const before = await read(staff.id);
    expect(before.json().totp_enabled).toBe(true);

    const res = await reset(staff.id, resetter);
    expect(res.statusCode, res.body).toBe(204);
    expect(await totpRow(staff.id)).toBeUndefined();
    const after = await read(staff.id);
    expect(after.json().totp_enabled).toBe(false);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const signedIn = await firstFactor(staff.email);
    expect(signedIn).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
    expect(signedIn.mfa_token).toBeUndefined();
    // A sign-in waiting for its second factor when the reset came has none left to give.
    expectProblem(await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: pending, code: '123456' } }), 400, 'invalid_grant');

    const entries = (await trail(staff.id)).filter((e) => e.action === 'totp-reset' || e.action === 'totp_reset');
    expect(entries).toEqual([
      expect.objectContaining({ action: 'totp-reset', actor_type: 'client', new_values: { totp_enabled: false } }),
      expect.objectContaining({ action: 'totp_reset', actor_type: 'client', new_values: { enrolment: 'active' } }),
    ]);
    expect(entries[0]?.actor_id).toBe(entries[1]?.actor_id);
  });

  it('removes a pending enrolment too, and the user can enrol again', async () => {
    const guest = await user('guest');
    const token = String((await firstFactor(guest.email)).access_token);
    expect((await h.request({ method: 'POST', url: '/v1/auth/totp/enroll', token })).statusCode).toBe(200);
    expect((await reset(guest.id, resetter)).statusCode).toBe(204);
    expect(await totpRow(guest.id)).toBeUndefined();
    expect((await trail(guest.id)).find((e) => e.action === 'totp_reset')?.new_values).toEqual({ enrolment: 'pending' });

    const enrolled = await h.request({ method: 'POST', url: '/v1/auth/totp/enroll', token });
    const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
    const activated = await h.request({ method: 'POST', url: '/v1/auth/totp/activate', token, body: { code: totp.generate({ timestamp: now() }) } });
    expect(activated.statusCode, activated.body).toBe(204);
  });

  // Row locks: SQLite writes one transaction at a time, so only PostgreSQL can interleave them.
  it.runIf(dialect === 'postgres')('a reset racing the user’s own activation: one waits for the other, neither fails (one lock order)', async () => {
    const guest = await user('guest');
    const token = String((await firstFactor(guest.email)).access_token);
    const enrolled = await h.request({ method: 'POST', url: '/v1/auth/totp/enroll', token });
    const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
    // The activation has claimed its step (its TOTP row is locked) and is about to turn the
    // user's flag on (the user's row): the reset starts right then, and the activation goes
    // on once the reset waits for a lock.
    let resetting: Promise<LightMyRequestResponse> | undefined;
    const waitingBackends = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(h.database.db)).rows[0]?.n);
    const totpUpdates = new Set<string>();
    const resetMidActivation: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        if (UpdateQueryNode.is(node) && node.table && TableNode.is(node.table) && node.table.table.identifier.name === 'user_totp') totpUpdates.add(queryId.queryId);
        return node;
      },
      transformResult: async ({ queryId, result }) => {
        if (!resetting && totpUpdates.has(queryId.queryId) && result.numAffectedRows === 1n) {
          resetting = reset(guest.id, resetter);
          await eventually(waitingBackends, (n) => n > 0, 'the reset to wait for a row lock');
        }
        return result;
      },
    };
    const keys = await SigningKeyStore.open({ file: join(h.config.dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
    const activating = await buildApp(h.config, { database: { ...h.database, db: h.database.db.withPlugin(resetMidActivation) }, keys, logger: false, clock: { now } });
    try {
      const activated = await activating.server.inject({
        method: 'POST',
        url: '/v1/auth/totp/activate',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ code: totp.generate({ timestamp: now() }) }),
      });
      expect(resetting, 'the reset was started mid-activation').toBeDefined();
      const resetAnswer = await (resetting as Promise<LightMyRequestResponse>);
      expect([activated.statusCode, resetAnswer.statusCode], `${activated.body} ${resetAnswer.body}`).toEqual([204, 204]);
      // The reset came second: the enrolment it found active is gone.
      expect(await totpRow(guest.id)).toBeUndefined();
      expect((await trail(guest.id)).find((e) => e.action === 'totp_reset')?.new_values).toEqual({ enrolment: 'active' });
    } finally {
      await activating.server.close();
    }
  });

  it('answers 204 and writes nothing when there is nothing to reset', async () => {
    const guest = await user('guest');
    const before = await read(guest.id);
    expect((await reset(guest.id, resetter)).statusCode).toBe(204);
    expect((await read(guest.id)).headers.etag).toBe(before.headers.etag);
    expect((await trail(guest.id)).map((e) => e.action)).toEqual(['create']);
  });

  it('answers 404 for a user out of reach or unknown', async () => {
    const stranger = await user('guest', other);
    await signInByEmail(h, smtp, other, stranger.email, { ...clock, totp: true });
    expectProblem(await reset(stranger.id, resetter), 404, 'not_found');
    expect((await totpRow(stranger.id))?.enabled).toBe(1);
    expectProblem(await reset('00000000-0000-4000-8000-000000000000', resetter), 404, 'not_found');
  });

  it('refuses a caller lacking capabilities of the user’s role (the grant ceiling), and needs users:reset-totp', async () => {
    const admin = await user('admin');
    await signInByEmail(h, smtp, tenant, admin.email, { ...clock, totp: true });
    const refused = expectProblem(await reset(admin.id, narrow), 403, 'insufficient_scope');
    expect(refused.detail).toMatch(/^A caller cannot manage a user with the role admin, whose capabilities it lacks: /);
    expect((await totpRow(admin.id))?.enabled).toBe(1);
    expect((await trail(admin.id)).map((e) => e.action)).not.toContain('totp_reset');

    const guest = await user('guest');
    await signInByEmail(h, smtp, tenant, guest.email, { ...clock, totp: true });
    expect((await reset(guest.id, narrow)).statusCode).toBe(204);
    expect(expectProblem(await reset(guest.id, updater), 403, 'insufficient_scope').detail).toBe('This operation needs the capability users:reset-totp');
  });
});
