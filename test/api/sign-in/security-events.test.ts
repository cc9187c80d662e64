import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../../src/registry/index.js';
import { asSystem } from '../../../src/core/principal.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { clientKeyPair } from '../../support/keys.js';
import type { TestClient } from '../../support/harness.js';
import { codeIn, startSmsReceiver, startSmtp, waitFor } from '../../support/mail-and-sms.js';
import { expectProblem } from '../../support/problem.js';
import { securityEntriesOf } from '../../support/security-trail.js';
import type { SecurityEntry } from '../../support/security-trail.js';

type Receiver = Awaited<ReturnType<typeof startSmtp>>;

/**
 * Every sign-in, refusal, lockout, throttle, TOTP change, recovery-code use and step-up
 * refusal is a `security` entry of the audit trail, read back here through the audit log
 * API (issue 13). Entries are found by the request id the service answered with.
 */
// One story: sign-ins, refusals and TOTP steps write the trail, and the last step reads the
// whole trail for leaked secrets. The steps keep their order under `--sequence.shuffle`.
describe('sign-in security events, step by step', { shuffle: false }, () => {
  describe.each(dialects)('sign-in security events on %s', (dialect) => {
    let h: Harness;
    let smtp: Receiver;
    let sms: Receiver;
    let tenant: string;
    let reader: TestClient;
    const ids: Record<string, string> = {};
    /** Everything a trail entry must never contain: codes, secrets, tokens, destinations. */
    const secrets: string[] = [];
    // The service's clock: moved past cooldowns and expiries by the tests.
    let offset = 0;
    const now = () => Date.now() + offset;

    beforeAll(async () => {
      [smtp, sms] = await Promise.all([startSmtp(), startSmsReceiver()]);
      h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url, SMS_WEBHOOK_URL: sms.url, OTP_DAILY_SMS_LIMIT: '1' } });
      tenant = await h.tenant('Events');
      reader = await h.client(null, ['audit-logs:list', 'audit-logs:export']);
      const scope = { nodeId: tenant, level: 'tenant' as const, path: `/${tenant}/` };
      const context = { principal: { ...asSystem(), scope }, clientIp: null, requestId: null };
      for (const [name, body] of Object.entries({
        staff: { email: 'staff@events.test', phone: '+4915122223333', role: 'staff' },
        admin: { email: 'admin@events.test', role: 'admin' },
      })) {
        ids[name] = String((await h.app.resources.create(context, getResource('users'), body)).record._id);
      }
      secrets.push('staff@events.test', 'admin@events.test', '+4915122223333');
    });
    afterAll(async () => {
      await h.close();
      await smtp.close();
      await sms.close();
    });

    const start = (destination: string, channel = 'email') => h.request({ method: 'POST', url: '/v1/auth/otp/start', body: { tenant_id: tenant, channel, destination } });
    const verify = (challenge: string, code: string) => h.request({ method: 'POST', url: '/v1/auth/otp/verify', body: { challenge_id: challenge, code } });

    /** The security entries written while answering `response`. */
    const entriesOf = (response: LightMyRequestResponse) => securityEntriesOf(h, reader, response, now());

    async function onlyEntry(response: LightMyRequestResponse, action: string): Promise<SecurityEntry> {
      const entries = await entriesOf(response);
      expect(entries.map((e) => e.action)).toEqual([action]);
      return entries[0] as SecurityEntry;
    }

    /** A challenge for `email` and the code it e-mailed. */
    async function challenge(email: string): Promise<{ id: string; code: string }> {
      offset += 61_000;
      const before = smtp.messages.length;
      const started = await start(email);
      expect(started.statusCode, started.body).toBe(202);
      await waitFor(smtp.messages, before + 1);
      const code = codeIn(smtp.messages[before]);
      secrets.push(code);
      return { id: started.json().challenge_id as string, code };
    }

    const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

    it('records a sign-in with the user as actor and record, and no code', async () => {
      const { id, code } = await challenge('staff@events.test');
      const answer = await verify(id, code);
      expect(answer.statusCode, answer.body).toBe(200);
      secrets.push(answer.json().access_token as string);
      const entry = await onlyEntry(answer, 'sign_in');
      expect(entry).toMatchObject({ category: 'security', actor_type: 'user', actor_id: ids.staff, resource: 'users', record_id: ids.staff, tenant_id: tenant, client_ip: '127.0.0.1' });
      expect(entry.new_values).toEqual({ amr: ['otp'], channel: 'email', role: 'staff' });

      // Used again: a failure, reason `used`.
      const reused = await verify(id, code);
      expectProblem(reused, 400, 'invalid_grant');
      expect((await onlyEntry(reused, 'sign_in_failed')).new_values).toMatchObject({ step: 'otp', reason: 'used', challenge_id: id });
    });

    it('records each wrong code with its try number, the lockout once, and the refused right code afterwards', async () => {
      const { id, code } = await challenge('staff@events.test');
      const attempts: number[] = [];
      for (let i = 1; i <= 5; i += 1) {
        const wrong = await verify(id, wrongFor(code));
        expectProblem(wrong, 400, 'invalid_grant');
        const entries = await entriesOf(wrong);
        expect(entries.map((e) => e.action)).toEqual(i < 5 ? ['sign_in_failed'] : ['sign_in_failed', 'sign_in_locked']);
        expect(entries[0]).toMatchObject({ actor_type: 'user', record_id: ids.staff, tenant_id: tenant, new_values: { step: 'otp', reason: 'wrong_code', channel: 'email' } });
        attempts.push(Number(entries[0]?.new_values.attempts));
      }
      expect(attempts).toEqual([1, 2, 3, 4, 5]);
      const right = await verify(id, code);
      expectProblem(right, 400, 'invalid_grant');
      expect((await onlyEntry(right, 'sign_in_failed')).new_values).toMatchObject({ reason: 'locked' });
    });

    it('records expired and unknown challenges (an unknown one under the system actor)', async () => {
      const { id, code } = await challenge('staff@events.test');
      offset += 601_000;
      const expired = await verify(id, code);
      expectProblem(expired, 400, 'invalid_grant');
      expect(await onlyEntry(expired, 'sign_in_failed')).toMatchObject({ actor_type: 'user', record_id: ids.staff, new_values: { step: 'otp', reason: 'expired' } });

      const unknown = await verify('no-such-challenge', '123456');
      expectProblem(unknown, 400, 'invalid_grant');
      const entry = await onlyEntry(unknown, 'sign_in_failed');
      expect(entry).toMatchObject({ actor_type: 'system', record_id: null, tenant_id: null, new_values: { step: 'otp', reason: 'unknown' } });
      // The caller's text is not repeated in the trail.
      expect(JSON.stringify(entry)).not.toContain('no-such-challenge');
    });

    it('records a start for an unknown tenant under the system node, without its id, and answers it like an unknown destination', async () => {
      const unknownTenant = 'no-such-tenant-4711';
      offset += 61_000;
      const before = smtp.messages.length;
      // A known user's address, asked for in a tenant that does not exist ...
      const elsewhere = await h.request({ method: 'POST', url: '/v1/auth/otp/start', body: { tenant_id: unknownTenant, channel: 'email', destination: 'staff@events.test' } });
      // ... and an unknown address in a known tenant: the same answer.
      const nobody = await start('nobody@events.test');
      for (const answer of [elsewhere, nobody]) {
        expect(answer.statusCode, answer.body).toBe(202);
        expect(answer.json()).toEqual({ challenge_id: expect.any(String), expires_in: 600 });
        expect(answer.headers['content-type']).toBe(nobody.headers['content-type']);
      }
      const issued = await onlyEntry(elsewhere, 'otp_issued');
      expect(issued).toMatchObject({ actor_type: 'system', resource: 'users', record_id: null, tenant_id: null, new_values: { channel: 'email' } });
      expect(JSON.stringify(issued)).not.toContain(unknownTenant);
      expect(await onlyEntry(nobody, 'otp_issued')).toMatchObject({ actor_type: 'system', record_id: null, tenant_id: tenant });

      // Its challenge takes guesses like any other, and the refusal stays under the system node too.
      const guess = await verify(elsewhere.json().challenge_id as string, '123456');
      expectProblem(guess, 400, 'invalid_grant');
      const failed = await onlyEntry(guess, 'sign_in_failed');
      expect(failed).toMatchObject({ actor_type: 'system', record_id: null, tenant_id: null, new_values: { step: 'otp', reason: 'wrong_code' } });
      expect(JSON.stringify(failed)).not.toContain(unknownTenant);
      // Nothing was sent to the known user of the other tenant.
      expect(smtp.messages.slice(before).filter((m) => m.to === 'staff@events.test')).toEqual([]);
    });

    it('records the resend cooldown and the daily cap refusals', async () => {
      await challenge('staff@events.test');
      const again = await start('staff@events.test');
      expectProblem(again, 429, 'rate_limited');
      expect(await onlyEntry(again, 'otp_refused')).toMatchObject({ actor_type: 'user', record_id: ids.staff, tenant_id: tenant, new_values: { channel: 'email', reason: 'cooldown' } });

      // OTP_DAILY_SMS_LIMIT is 1: the second SMS of the day is refused.
      expect((await start('+4915100000009', 'sms')).statusCode).toBe(202);
      const capped = await start('+4915122223333', 'sms');
      expectProblem(capped, 429, 'daily_limit_reached');
      expect(await onlyEntry(capped, 'otp_refused')).toMatchObject({ record_id: ids.staff, new_values: { channel: 'sms', reason: 'daily_limit' } });
    });

    it('records step-up refusals, TOTP enrolment, activation, the second factor, recovery codes, a replay and the removal', async () => {
      const first = await challenge('admin@events.test');
      const signedIn = await verify(first.id, first.code);
      const otpOnly = signedIn.json().access_token as string;
      secrets.push(otpOnly);

      const refused = await h.request({ method: 'POST', url: '/v1/api-clients', token: otpOnly, body: { name: 'x', capabilities: ['products:list'], public_key: clientKeyPair().publicPem } });
      expectProblem(refused, 401, 'mfa_required');
      expect(await onlyEntry(refused, 'step_up_required')).toMatchObject({
        actor_type: 'user',
        actor_id: ids.admin,
        record_id: ids.admin,
        tenant_id: tenant,
        new_values: { capability: 'api-clients:create', method: 'POST', route: '/v1/api-clients', amr: ['otp'] },
      });

      const enrolled = await h.request({ method: 'POST', url: '/v1/auth/totp/enroll', token: otpOnly });
      const { secret, recovery_codes: recovery } = enrolled.json() as { secret: string; recovery_codes: string[] };
      secrets.push(secret, ...recovery);
      expect(await onlyEntry(enrolled, 'totp_enrolled')).toMatchObject({ record_id: ids.admin, new_values: { recovery_codes: 10 } });
      const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
      const code = () => {
        offset += 30_000;
        const value = totp.generate({ timestamp: now() });
        secrets.push(value);
        return value;
      };

      const wrongActivation = await h.request({ method: 'POST', url: '/v1/auth/totp/activate', token: otpOnly, body: { code: wrongFor(totp.generate({ timestamp: now() })) } });
      expect(wrongActivation.statusCode).toBe(400);
      expect((await onlyEntry(wrongActivation, 'totp_failed')).new_values).toEqual({ operation: 'activate', reason: 'wrong_code' });
      const activated = await h.request({ method: 'POST', url: '/v1/auth/totp/activate', token: otpOnly, body: { code: code() } });
      expect(activated.statusCode, activated.body).toBe(204);
      expect(await onlyEntry(activated, 'totp_activated')).toMatchObject({ record_id: ids.admin });

      const second = await challenge('admin@events.test');
      const mfa = await verify(second.id, second.code);
      const mfaToken = mfa.json().mfa_token as string;
      secrets.push(mfaToken);
      expect(await onlyEntry(mfa, 'mfa_challenge')).toMatchObject({ record_id: ids.admin, new_values: { channel: 'email' } });
      const totpCode = code();
      const full = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfaToken, code: totpCode } });
      expect(full.statusCode, full.body).toBe(200);
      const token = full.json().access_token as string;
      secrets.push(token);
      expect((await onlyEntry(full, 'sign_in')).new_values).toEqual({ amr: ['otp', 'totp'], second_factor: 'totp', role: 'admin' });

      // The accepted code again (same time step): refused as a replay.
      const replay = await h.request({ method: 'POST', url: '/v1/auth/totp/disable', token, body: { code: totpCode } });
      expect(replay.statusCode).toBe(400);
      expect((await onlyEntry(replay, 'totp_failed')).new_values).toEqual({ operation: 'disable', reason: 'replayed' });

      const third = await challenge('admin@events.test');
      const mfa3 = (await verify(third.id, third.code)).json().mfa_token as string;
      secrets.push(mfa3);
      const byRecovery = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfa3, code: recovery[0] } });
      expect(byRecovery.statusCode, byRecovery.body).toBe(200);
      const recoveryEntries = await entriesOf(byRecovery);
      expect(recoveryEntries.map((e) => e.action)).toEqual(['recovery_code_used', 'sign_in']);
      expect(recoveryEntries[0]?.new_values).toEqual({ remaining: 9 });
      expect(recoveryEntries[1]?.new_values).toMatchObject({ second_factor: 'recovery_code' });

      const fourth = await challenge('admin@events.test');
      const mfa4 = (await verify(fourth.id, fourth.code)).json().mfa_token as string;
      const spent = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfa4, code: recovery[0] } });
      expectProblem(spent, 400, 'invalid_grant');
      expect((await onlyEntry(spent, 'sign_in_failed')).new_values).toEqual({ step: 'totp', reason: 'wrong_code', attempts: 1 });
      // Four more wrong codes: the fifth try kills the mfa challenge, once; then even a right code is refused.
      const current = totp.generate({ timestamp: now() });
      for (let attempt = 2; attempt <= 5; attempt += 1) {
        const wrong = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfa4, code: wrongFor(current) } });
        expectProblem(wrong, 400, 'invalid_grant');
        const entries = await entriesOf(wrong);
        expect(entries.map((e) => e.action)).toEqual(attempt < 5 ? ['sign_in_failed'] : ['sign_in_failed', 'sign_in_locked']);
        expect(entries[0]?.new_values).toEqual({ step: 'totp', reason: 'wrong_code', attempts: attempt });
      }
      const dead = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfa4, code: code() } });
      expectProblem(dead, 400, 'invalid_grant');
      expect(await onlyEntry(dead, 'sign_in_failed')).toMatchObject({ actor_type: 'user', record_id: ids.admin, tenant_id: tenant, new_values: { step: 'totp', reason: 'locked' } });

      const disabled = await h.request({ method: 'POST', url: '/v1/auth/totp/disable', token, body: { code: code() } });
      expect(disabled.statusCode, disabled.body).toBe(204);
      expect(await onlyEntry(disabled, 'totp_disabled')).toMatchObject({ actor_type: 'user', record_id: ids.admin });
    });

    it('never writes a code, secret, token or destination into the trail', async () => {
      await h.app.securityEvents.flush();
      const exported = await h.request({ method: 'GET', url: '/v1/audit-logs/export?category=security', token: await h.token(reader, undefined, now()) });
      expect(exported.statusCode).toBe(200);
      const lines = exported.body.trim().split('\n');
      expect(lines.length).toBeGreaterThan(20);
      const userEntries = lines.filter((line) => line.includes('"resource":"users"'));
      expect(userEntries.length).toBeGreaterThan(20);
      expect(secrets.length).toBeGreaterThan(15);
      for (const secret of secrets) expect(exported.body, `the trail contains ${secret.slice(0, 12)}…`).not.toContain(secret);
    });
  });
});
