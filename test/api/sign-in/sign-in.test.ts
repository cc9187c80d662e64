import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../../src/registry/index.js';
import { roleCapabilities } from '../../../src/actions/roles.js';
import { asSystem } from '../../../src/core/principal.js';
import type { RequestContext } from '../../../src/core/request-context.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { codeIn, startSmsReceiver, startSmtp, waitFor } from '../../support/mail-and-sms.js';
import { eventually } from '../../support/poll.js';
import { expectProblem } from '../../support/problem.js';
import { clientKeyPair } from '../../support/keys.js';

type Receiver = Awaited<ReturnType<typeof startSmtp>>;

function totpFor(secret: string): TOTP {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
}

describe.each(dialects)('end-user sign-in on %s', (dialect) => {
  let h: Harness;
  let smtp: Receiver;
  let sms: Receiver;
  let tenant: string;
  let context: RequestContext;
  const emails = { admin: 'Admin@Example.test', staff: 'staff@example.test', capitals: 'JÜRGEN@Example.test' };
  let capitalsUser = '';
  // The service's clock runs ahead by a minute per sign-in, past the resend cooldown.
  let offset = 0;
  const now = () => Date.now() + offset;

  beforeAll(async () => {
    [smtp, sms] = await Promise.all([startSmtp(), startSmsReceiver()]);
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url, SMS_WEBHOOK_URL: sms.url, OTP_DAILY_SMS_LIMIT: '3' } });
    tenant = await h.tenant('Sign-in');
    context = {
      principal: {
        ...asSystem(),
        scope: (await h.app.resources.read({ principal: asSystem(), clientIp: null, requestId: null }, getResource('tenants'), tenant)) && {
          nodeId: tenant,
          level: 'tenant' as const,
          path: `/${tenant}/`,
        },
      },
      clientIp: null,
      requestId: null,
    };
    await h.app.resources.create(context, getResource('users'), { email: emails.admin, phone: '+4915112345678', role: 'admin', locale: 'de' });
    await h.app.resources.create(context, getResource('users'), { email: emails.staff, role: 'staff' });
    capitalsUser = String((await h.app.resources.create(context, getResource('users'), { email: emails.capitals })).record._id);
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
    await sms.close();
  });

  const start = (destination: string, channel = 'email') => h.request({ method: 'POST', url: '/v1/auth/otp/start', body: { tenant_id: tenant, channel, destination } });
  const verify = (challenge: string, code: string) => h.request({ method: 'POST', url: '/v1/auth/otp/verify', body: { challenge_id: challenge, code } });

  /** One `otp_messages_total` counter (0 before its first count). */
  async function otpMessages(channel: string, outcome: string): Promise<number> {
    const metrics = await h.request({ method: 'GET', url: '/metrics', headers: { 'x-forwarded-for': '127.0.0.1' } });
    return Number(new RegExp(`^otp_messages_total\\{channel="${channel}",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics.body)?.[1] ?? 0);
  }

  /**
   * Waits out the e-mails already on their way, without a fixed sleep: a code for a user
   * made for the purpose, queued after them, has arrived; returns how many others came.
   */
  let markers = 0;
  async function othersArrivedSince(before: number): Promise<number> {
    const email = `marker-${++markers}@example.test`;
    await h.app.resources.create(context, getResource('users'), { email, role: 'staff' });
    expect((await start(email)).statusCode).toBe(202);
    await eventually(() => smtp.messages.slice(before).some((m) => m.to === email), Boolean, `the sign-in code for ${email}`);
    return smtp.messages.slice(before).filter((m) => m.to !== email).length;
  }

  /** A full e-mail sign-in; the answer of otp/verify. */
  async function signIn(email: string) {
    offset += 61_000;
    const before = smtp.messages.length;
    const started = await start(email);
    expect(started.statusCode, started.body).toBe(202);
    await waitFor(smtp.messages, before + 1);
    return verify(started.json().challenge_id, codeIn(smtp.messages[before]));
  }

  it('matches an address with capitals beyond ASCII however it is cased where the database folds them: SQLite always, PostgreSQL by its LC_CTYPE', async () => {
    const folds = dialect === 'sqlite' || (await sql<{ folds: boolean }>`select lower('Ü') = 'ü' as folds`.execute(h.database.db)).rows[0]?.folds === true;
    for (const written of ['jürgen@example.test', 'JÜRGEN@EXAMPLE.TEST']) {
      offset += 61_000;
      const before = smtp.messages.length;
      const started = await start(written);
      expect(started.statusCode, started.body).toBe(202);
      // The start's security event names the user it found (written with the challenge).
      const issued = await h.database.db.selectFrom('audit_logs').select('record_id').where('action', '=', 'otp_issued').orderBy('_id', 'desc').executeTakeFirstOrThrow();
      expect(issued.record_id, written).toBe(folds ? capitalsUser : null);
      if (folds) await waitFor(smtp.messages, before + 1);
    }
    if (!folds) return;
    const signedIn = await signIn('jürgen@example.test');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(decodeJwt(signedIn.json().access_token as string).sub).toBe(capitalsUser);
  });

  it("e-mails a 6-digit code (the only one in the message, in the user's language) that buys a user token once", async () => {
    offset += 61_000;
    const before = smtp.messages.length;
    const started = await start(emails.staff);
    expect(started.statusCode).toBe(202);
    expect(started.json()).toEqual({ challenge_id: expect.any(String), expires_in: 600 });
    await waitFor(smtp.messages, before + 1);
    const message = smtp.messages[before];
    expect(message?.to).toBe(emails.staff);
    expect(message?.body).toContain('Your sign-in code is');
    const code = codeIn(message);
    const answer = await verify(started.json().challenge_id, code);
    expect(answer.statusCode, answer.body).toBe(200);
    const claims = decodeJwt(answer.json().access_token);
    expect(claims).toMatchObject({ actor_type: 'user', tenant_id: tenant, amr: ['otp'], level: 'tenant' });
    expect(String(claims.scope).split(' ').sort()).toEqual([...roleCapabilities.staff].sort());
    // Single use.
    expectProblem(await verify(started.json().challenge_id, code), 400, 'invalid_grant');
    // The token works within the role, and the user is the audited actor.
    const token = answer.json().access_token as string;
    const created = await h.request({ method: 'POST', url: '/v1/products', token, body: { name: 'Loft', address: 'a', city: 'c', zip_code: '1', total_items: 1 } });
    expect(created.statusCode, created.body).toBe(201);
    const entry = await h.database.db.selectFrom('audit_logs').select(['actor_type', 'actor_id']).where('record_id', '=', created.json()._id).executeTakeFirstOrThrow();
    expect(entry).toEqual({ actor_type: 'user', actor_id: claims.sub });
    expectProblem(await h.request({ method: 'GET', url: '/v1/api-clients', token }), 403, 'insufficient_scope');
  });

  it('answers an unknown destination exactly like a known one, and sends nothing', async () => {
    const before = smtp.messages.length;
    const noUser = await otpMessages('email', 'no_user');
    const unknown = await start('nobody@example.test');
    expect(unknown.statusCode).toBe(202);
    expect(Object.keys(unknown.json()).sort()).toEqual(['challenge_id', 'expires_in']);
    // Decided before the answer: counted as "no user", so no message was queued ...
    expect(await otpMessages('email', 'no_user')).toBe(noUser + 1);
    // ... and none arrives.
    expect(await othersArrivedSince(before)).toBe(0);
    expectProblem(await verify(unknown.json().challenge_id, '123456'), 400, 'invalid_grant');
  });

  it('refuses a new code for the same destination within 60 s, and kills a challenge after 5 wrong codes', async () => {
    offset += 61_000;
    const before = smtp.messages.length;
    const started = await start('third@example.test');
    expect(started.statusCode).toBe(202);
    const again = await start('THIRD@example.test');
    expectProblem(again, 429, 'rate_limited');
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    await h.app.resources.create({ principal: asSystem(), clientIp: null, requestId: null }, getResource('users'), { email: 'fourth@example.test' }).catch(() => undefined);
    const admin = await start(emails.admin);
    await waitFor(smtp.messages, before + 1);
    const right = codeIn(smtp.messages.at(-1));
    const wrong = right === '000000' ? '111111' : '000000';
    // A guess of the wrong shape is a wrong code too, and uses an attempt.
    for (const guess of ['12345', 'abcdef', wrong, wrong, wrong]) expectProblem(await verify(admin.json().challenge_id, guess), 400, 'invalid_grant');
    expectProblem(await verify(admin.json().challenge_id, right), 400, 'invalid_grant');
  });

  it('sends SMS through the gateway adapter and stops at the deployment-wide daily cap with nothing sent', async () => {
    const answers = [];
    for (const phone of ['+4915112345678', '+4915100000001', '+4915100000002']) answers.push(await start(phone, 'sms'));
    expect(answers.map((a) => a.statusCode)).toEqual([202, 202, 202]);
    await waitFor(sms.messages, 1);
    expect(sms.messages[0]?.to).toBe('+4915112345678');
    expect(sms.messages[0]?.body).toContain('Ihr Anmeldecode lautet');
    const capped = await start('+4915100000003', 'sms');
    expectProblem(capped, 429, 'daily_limit_reached');
    // Every start is counted before its answer: one message queued (the known phone), two
    // unknown phones. Once that one has been delivered, no other SMS is on its way.
    expect(await otpMessages('sms', 'no_user')).toBe(2);
    await eventually(
      () => otpMessages('sms', 'sent'),
      (sent) => sent === 1,
      'the one SMS to be delivered',
    );
    expect(sms.messages).toHaveLength(1);
    const metrics = await h.request({ method: 'GET', url: '/metrics', headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(metrics.body).toMatch(/otp_messages_total\{channel="sms",outcome="refused_daily_limit"\} 1/);
    expect(metrics.body).toMatch(/otp_daily_cap_used\{channel="sms"\} 1/);
  });

  it('administrative writes need TOTP (RFC 9470 step-up); with it, sign-in takes both factors and replays are refused', async () => {
    const first = await signIn(emails.admin);
    expect(first.statusCode, first.body).toBe(200);
    const otpOnly = first.json().access_token as string;
    expect(decodeJwt(otpOnly).amr).toEqual(['otp']);
    expect((await h.request({ method: 'GET', url: '/v1/api-clients', token: otpOnly })).statusCode).toBe(200);
    const body = { name: 'from a user', capabilities: ['products:list'], public_key: clientKeyPair().publicPem };
    const refused = await h.request({ method: 'POST', url: '/v1/api-clients', token: otpOnly, body });
    expectProblem(refused, 401, 'mfa_required');
    expect(refused.headers['www-authenticate']).toContain('error="insufficient_user_authentication"');

    const enrolled = await h.request({ method: 'POST', url: '/v1/auth/totp/enroll', token: otpOnly });
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    const { secret, otpauth_uri: uri, recovery_codes: recovery } = enrolled.json() as { secret: string; otpauth_uri: string; recovery_codes: string[] };
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect(recovery).toHaveLength(10);
    const totp = totpFor(secret);
    const at = now();
    const activation = totp.generate({ timestamp: at });
    // A wrong code, of any shape, is answered as a wrong code everywhere: 400 invalid_grant.
    const wrong = activation === '000000' ? '111111' : '000000';
    for (const guess of ['12345', 'abcdef', wrong]) expectProblem(await h.request({ method: 'POST', url: '/v1/auth/totp/activate', token: otpOnly, body: { code: guess } }), 400, 'invalid_grant');
    expect((await h.request({ method: 'POST', url: '/v1/auth/totp/activate', token: otpOnly, body: { code: activation } })).statusCode).toBe(204);
    // Step-up within a one-factor session (RFC 9470): a fresh code adds totp to amr.
    const stepped = await h.request({ method: 'POST', url: '/v1/auth/totp/step-up', token: otpOnly, body: { code: totp.generate({ timestamp: now() + 30_000 }) } });
    expect(stepped.statusCode, stepped.body).toBe(200);
    expect(decodeJwt(stepped.json().access_token).amr).toEqual(['otp', 'totp']);

    const second = await signIn(emails.admin);
    expect(second.json()).toEqual({ mfa_required: true, mfa_token: expect.any(String) });
    const mfaToken = second.json().mfa_token as string;
    expectProblem(await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfaToken, code: activation } }), 400, 'invalid_grant');
    const next = totp.generate({ timestamp: now() });
    const full = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfaToken, code: next } });
    expect(full.statusCode, full.body).toBe(200);
    const token = full.json().access_token as string;
    expect(decodeJwt(token).amr).toEqual(['otp', 'totp']);
    // The accepted code is spent: within its own time step it is refused (replay), like a wrong code.
    expectProblem(await h.request({ method: 'POST', url: '/v1/auth/totp/disable', token, body: { code: next } }), 400, 'invalid_grant');
    for (const guess of ['12345', 'abcdef', next === '000000' ? '111111' : '000000'])
      expectProblem(await h.request({ method: 'POST', url: '/v1/auth/totp/disable', token, body: { code: guess } }), 400, 'invalid_grant');
    const created = await h.request({ method: 'POST', url: '/v1/api-clients', token, body });
    expect(created.statusCode, created.body).toBe(201);

    // A recovery code works once, in place of the TOTP code.
    const third = await signIn(emails.admin);
    const byRecovery = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: third.json().mfa_token, code: recovery[0] } });
    expect(byRecovery.statusCode, byRecovery.body).toBe(200);
    const fourth = await signIn(emails.admin);
    expectProblem(await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: fourth.json().mfa_token, code: recovery[0] } }), 400, 'invalid_grant');

    const enabled = async () =>
      h.database.dialect.fromDb('boolean', (await h.database.db.selectFrom('users').select('totp_enabled').where('email', '=', emails.admin).executeTakeFirstOrThrow()).totp_enabled);
    expect(await enabled()).toBe(true);
    // Turning TOTP off needs a current, unspent code; then sign-in is one factor again.
    expect((await h.request({ method: 'POST', url: '/v1/auth/totp/disable', token, body: { code: totp.generate({ timestamp: now() }) } })).statusCode).toBe(204);
    expect(await enabled()).toBe(false);
    expect((await signIn(emails.admin)).json()).toMatchObject({ access_token: expect.any(String) });
  });

  it("a disabled user's token stops working at once", async () => {
    // A user of its own to disable: the other tests sign in as staff, in any order.
    const email = 'to-disable@example.test';
    await h.app.resources.create(context, getResource('users'), { email, role: 'staff' });
    const answer = await signIn(email);
    const token = answer.json().access_token as string;
    expect((await h.request({ method: 'GET', url: '/v1/products', token })).statusCode).toBe(200);
    const row = await h.database.db.selectFrom('users').select(['_id', 'etag']).where('email', '=', email).executeTakeFirstOrThrow();
    const tenantScope = { nodeId: tenant, level: 'tenant' as const, path: `/${tenant}/` };
    await h.app.resources.update({ principal: { ...asSystem(), scope: tenantScope }, clientIp: null, requestId: null }, getResource('users'), String(row._id), String(row.etag), {
      status: 'disabled',
    });
    expectProblem(await h.request({ method: 'GET', url: '/v1/products', token }), 401, 'invalid_token');
  });
});
