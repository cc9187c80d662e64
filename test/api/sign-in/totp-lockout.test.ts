import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { codeIn, startSmtp, waitFor } from '../../support/mail-and-sms.js';
import { expectProblem } from '../../support/problem.js';
import { createUserIn } from '../../support/user-sign-in.js';

type Receiver = Awaited<ReturnType<typeof startSmtp>>;

/**
 * The TOTP lock-out (docs/end-users.md, "Lock-out after wrong codes"; security audit
 * finding 4): refused TOTP codes are counted per user over activate, verify, step-up and
 * disable; the 5th in a row locks TOTP for 1 min, each further one twice as long; while
 * locked even the right code gets 429 unchecked; recovery codes still work. The service's
 * clock is injected and moved forward, never waited for.
 */
describe.each(dialects)('TOTP lock-out on %s', (dialect) => {
  let h: Harness;
  let smtp: Receiver;
  let tenant: string;
  let offset = 0;
  const now = () => Date.now() + offset;
  let users = 0;

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
    tenant = await h.tenant('Lock-out');
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  const post = (url: string, body: unknown, token?: string) => h.request({ method: 'POST', url, body, ...(token ? { token } : {}) });

  /** The answer of `/v1/auth/otp/verify` after a fresh e-mail code (the clock moved past the resend cooldown). */
  async function firstFactor(email: string): Promise<LightMyRequestResponse> {
    offset += 61_000;
    const before = smtp.messages.length;
    const started = await post('/v1/auth/otp/start', { tenant_id: tenant, channel: 'email', destination: email });
    expect(started.statusCode, started.body).toBe(202);
    await waitFor(smtp.messages, before + 1);
    return post('/v1/auth/otp/verify', { challenge_id: started.json().challenge_id, code: codeIn(smtp.messages.slice(before).find((m) => m.to === email)) });
  }

  /** A new mfa_token for a user with TOTP on. */
  async function mfaToken(email: string): Promise<string> {
    const answer = await firstFactor(email);
    expect(answer.json(), answer.body).toMatchObject({ mfa_required: true });
    return answer.json().mfa_token as string;
  }

  /** A new admin with TOTP on: its one-factor token, its authenticator and its recovery codes. */
  async function enrolledUser(): Promise<{ id: string; email: string; otpOnly: string; totp: TOTP; recovery: string[] }> {
    users += 1;
    const email = `lockout-${users}@example.test`;
    const id = await createUserIn(h, tenant, 'tenant', { email, role: 'admin' });
    const otpOnly = (await firstFactor(email)).json().access_token as string;
    const enrolled = await post('/v1/auth/totp/enroll', undefined, otpOnly);
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
    const activated = await post('/v1/auth/totp/activate', { code: totp.generate({ timestamp: now() }) }, otpOnly);
    expect(activated.statusCode, activated.body).toBe(204);
    return { id, email, otpOnly, totp, recovery: enrolled.json().recovery_codes as string[] };
  }

  /** The code of the next time step (the last accepted step is spent). */
  const rightCode = (totp: TOTP) => {
    offset += 30_000;
    return totp.generate({ timestamp: now() });
  };
  /** The code of the current time step: a later step than any accepted before (a sign-in moves the clock a minute). */
  const currentCode = (totp: TOTP) => totp.generate({ timestamp: now() });
  /** A 6-digit code valid at none of the steps t−1, t, t+1. */
  const wrongCode = (totp: TOTP) => {
    const valid = new Set([-30_000, 0, 30_000].map((d) => totp.generate({ timestamp: now() + d })));
    return ['000000', '111111', '222222', '333333'].find((code) => !valid.has(code)) ?? '444444';
  };

  const lockedFor = (answer: LightMyRequestResponse) => {
    expectProblem(answer, 429, 'rate_limited');
    return Number(answer.headers['retry-after']);
  };

  const stored = async (userId: string) => {
    const row = await h.database.db.selectFrom('user_totp').select(['failed_tries', 'locked_until']).where('user_id', '=', userId).executeTakeFirstOrThrow();
    return { failures: Number(row.failed_tries), lockedUntil: Number(row.locked_until) };
  };

  const securityActions = async (userId: string, action: string) => {
    await h.app.securityEvents.flush();
    const rows = await h.database.db
      .selectFrom('audit_logs')
      .select('new_values')
      .where('category', '=', 'security')
      .where('record_id', '=', userId)
      .where('action', '=', action)
      .orderBy('_id')
      .execute();
    return rows.map((row) => (typeof row.new_values === 'string' ? JSON.parse(row.new_values) : row.new_values) as Record<string, unknown>);
  };

  it('refuses the right code after 5 wrong ones, lets it through once the lock is over, and that resets the count', async () => {
    const { id, otpOnly, totp } = await enrolledUser();
    const stepUp = (code: string) => post('/v1/auth/totp/step-up', { code }, otpOnly);
    for (let i = 1; i <= 5; i += 1) expectProblem(await stepUp(wrongCode(totp)), 400, 'invalid_grant');
    expect(await securityActions(id, 'totp_locked')).toEqual([{ operation: 'step_up', failures: 5, locked_for: 60 }]);
    // The 6th try, with the RIGHT code: refused unchecked, so the code is not spent either.
    const code = rightCode(totp);
    expect(lockedFor(await stepUp(code))).toBeGreaterThanOrEqual(29);
    expect((await securityActions(id, 'totp_failed')).at(-1)).toEqual({ operation: 'step_up', reason: 'totp_locked' });
    expect(await stored(id)).toMatchObject({ failures: 5 });

    // One minute after the 5th refusal the lock is over: the right code works ...
    offset += 31_000;
    const stepped = await stepUp(totp.generate({ timestamp: now() }));
    expect(stepped.statusCode, stepped.body).toBe(200);
    // ... and the count starts again: four wrong codes are plain refusals, the right one works.
    expect(await stored(id)).toEqual({ failures: 0, lockedUntil: 0 });
    for (let i = 1; i <= 4; i += 1) expectProblem(await stepUp(wrongCode(totp)), 400, 'invalid_grant');
    expect((await stepUp(rightCode(totp))).statusCode).toBe(200);
  });

  it('answers a six-character code of other than ASCII digits as a wrong code (400, counted), never a 500', async () => {
    const { id, otpOnly } = await enrolledUser();
    for (const code of ['12345é', '١٢٣٤٥٦', '００００04']) expectProblem(await post('/v1/auth/totp/step-up', { code }, otpOnly), 400, 'invalid_grant');
    expect(await stored(id)).toMatchObject({ failures: 3 });
  });

  it('doubles the lock with each further wrong code', async () => {
    const { id, otpOnly, totp } = await enrolledUser();
    const stepUp = (code: string) => post('/v1/auth/totp/step-up', { code }, otpOnly);
    for (let i = 1; i <= 5; i += 1) expectProblem(await stepUp(wrongCode(totp)), 400, 'invalid_grant');
    expect(lockedFor(await stepUp(wrongCode(totp)))).toBe(60);
    offset += 60_000;
    // The 6th refused code: locked for 2 min at once.
    expectProblem(await stepUp(wrongCode(totp)), 400, 'invalid_grant');
    expect(lockedFor(await stepUp(wrongCode(totp)))).toBe(120);
    offset += 61_000;
    expect(lockedFor(await stepUp(rightCode(totp)))).toBeGreaterThanOrEqual(29);
    offset += 60_000;
    expectProblem(await stepUp(wrongCode(totp)), 400, 'invalid_grant');
    expect(lockedFor(await stepUp(wrongCode(totp)))).toBe(240);
    expect((await securityActions(id, 'totp_locked')).map((e) => [e.failures, e.locked_for])).toEqual([
      [5, 60],
      [6, 120],
      [7, 240],
    ]);
  });

  it('50 parallel wrong codes: 5 refusals counted, the rest meet the lock (429)', async () => {
    const { id, otpOnly, totp } = await enrolledUser();
    const wrong = wrongCode(totp);
    const answers = await Promise.all(Array.from({ length: 50 }, () => post('/v1/auth/totp/step-up', { code: wrong }, otpOnly)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(45);
    expect(await stored(id)).toMatchObject({ failures: 5 });
    expect(await securityActions(id, 'totp_locked')).toHaveLength(1);
  });

  it('counts over step-up, the sign-in second factor and disable, and the lock holds at each', async () => {
    const { id, email, otpOnly, totp } = await enrolledUser();
    // Each sign-in brings a new mfa_token (5 tries each), but the TOTP count is the user's.
    // Taken first: a sign-in moves the clock past the resend cooldown, and past a 1 min lock.
    const tokens = [await mfaToken(email), await mfaToken(email), await mfaToken(email), await mfaToken(email)];
    for (let i = 1; i <= 2; i += 1) expectProblem(await post('/v1/auth/totp/step-up', { code: wrongCode(totp) }, otpOnly), 400, 'invalid_grant');
    for (const token of tokens.slice(0, 3)) expectProblem(await post('/v1/auth/totp/verify', { mfa_token: token, code: wrongCode(totp) }), 400, 'invalid_grant');
    expect((await securityActions(id, 'totp_locked')).map((e) => e.operation)).toEqual(['verify']);
    // Locked now: the right code is refused at every entry point, with either mfa_token.
    expect(lockedFor(await post('/v1/auth/totp/verify', { mfa_token: tokens[2], code: currentCode(totp) }))).toBeGreaterThan(0);
    const refused = await post('/v1/auth/totp/verify', { mfa_token: tokens[3], code: currentCode(totp) });
    expect(lockedFor(refused)).toBeGreaterThan(0);
    expect((await securityActions(id, 'sign_in_failed')).at(-1)).toMatchObject({ step: 'totp', reason: 'totp_locked' });
    expect(lockedFor(await post('/v1/auth/totp/step-up', { code: currentCode(totp) }, otpOnly))).toBeGreaterThan(0);
    expect(lockedFor(await post('/v1/auth/totp/disable', { code: currentCode(totp) }, otpOnly))).toBeGreaterThan(0);
    expect(await stored(id)).toMatchObject({ failures: 5 });
    // Once the minute is over, the right code signs in.
    offset += 60_000;
    const full = await post('/v1/auth/totp/verify', { mfa_token: tokens[3], code: currentCode(totp) });
    expect(full.statusCode, full.body).toBe(200);
  });

  it('counts wrong activation codes too', async () => {
    users += 1;
    const email = `lockout-${users}@example.test`;
    await createUserIn(h, tenant, 'tenant', { email, role: 'admin' });
    const otpOnly = (await firstFactor(email)).json().access_token as string;
    const enrolled = await post('/v1/auth/totp/enroll', undefined, otpOnly);
    const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
    for (let i = 1; i <= 5; i += 1) expectProblem(await post('/v1/auth/totp/activate', { code: wrongCode(totp) }, otpOnly), 400, 'invalid_grant');
    expect(lockedFor(await post('/v1/auth/totp/activate', { code: totp.generate({ timestamp: now() }) }, otpOnly))).toBeGreaterThan(0);
    offset += 61_000;
    expect((await post('/v1/auth/totp/activate', { code: totp.generate({ timestamp: now() }) }, otpOnly)).statusCode).toBe(204);
  });

  it('takes a recovery code while TOTP is locked; the recovery code lifts the lock, a wrong one is not counted', async () => {
    const { id, email, otpOnly, totp, recovery } = await enrolledUser();
    const token = await mfaToken(email);
    for (let i = 1; i <= 5; i += 1) expectProblem(await post('/v1/auth/totp/step-up', { code: wrongCode(totp) }, otpOnly), 400, 'invalid_grant');
    expect(lockedFor(await post('/v1/auth/totp/verify', { mfa_token: token, code: currentCode(totp) }))).toBeGreaterThan(0);
    // A wrong recovery code is a plain refusal (400), and does not lengthen the lock.
    expectProblem(await post('/v1/auth/totp/verify', { mfa_token: token, code: '0000aaaa-0000bbbb' }), 400, 'invalid_grant');
    expect(await stored(id)).toMatchObject({ failures: 5 });
    const byRecovery = await post('/v1/auth/totp/verify', { mfa_token: token, code: recovery[0] });
    expect(byRecovery.statusCode, byRecovery.body).toBe(200);
    // The lock is lifted at once and the count starts again.
    expect(await stored(id)).toEqual({ failures: 0, lockedUntil: 0 });
    const stepped = await post('/v1/auth/totp/step-up', { code: rightCode(totp) }, otpOnly);
    expect(stepped.statusCode, stepped.body).toBe(200);
  });
});
