import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAuditActionFailure } from '../../support/audit-action-failure.js';
import type { AuditActionFailure } from '../../support/audit-action-failure.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { codeIn, startSmtp, waitFor } from '../../support/mail-and-sms.js';
import { expectProblem } from '../../support/problem.js';
import { createUserIn } from '../../support/user-sign-in.js';

/**
 * Issue 27 §3: the security event of a sign-in state change is written in the change's own
 * transaction. For each one, an injected failure of exactly that audit insert rolls the
 * change back (the request fails with a clean 500 and the same step works afterwards, as
 * nothing was spent), and a success leaves exactly one entry.
 */
// One user's story: sign-in, enrolment, activation, step-up, recovery and disabling build on
// each other's state (tokens, TOTP secret, recovery codes), so the steps keep their order
// under `--sequence.shuffle`.
describe('sign-in state changes and their security events', { shuffle: false }, () => {
  describe.each(dialects)('commit together on %s', (dialect) => {
    let h: Harness;
    let smtp: Awaited<ReturnType<typeof startSmtp>>;
    let failure: AuditActionFailure;
    let tenant: string;
    let userId: string;
    const email = 'atomic@events.test';
    // The service's clock: moved past the resend cooldown and to the next TOTP step by the tests.
    let offset = 0;
    const now = () => Date.now() + offset;

    beforeAll(async () => {
      smtp = await startSmtp();
      h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
      tenant = await h.tenant('Atomic sign-in');
      userId = await createUserIn(h, tenant, 'tenant', { email, role: 'admin' });
      failure = await installAuditActionFailure(h.database);
    });
    afterAll(async () => {
      await h.close();
      await smtp.close();
    });

    const entries = async (action: string) =>
      Number(
        (
          await h.database.db
            .selectFrom('audit_logs')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('record_id', '=', userId)
            .where('action', '=', action)
            .executeTakeFirstOrThrow()
        ).n,
      );
    /** The user's rows in one of the sign-in challenge tables. */
    const challengesOf = async (table: 'otp_challenges' | 'mfa_challenges') =>
      Number(
        (
          await h.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('user_id', '=', userId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const totpRow = () => h.database.db.selectFrom('user_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
    const totpFlag = async () =>
      h.database.dialect.fromDb('boolean', (await h.database.db.selectFrom('users').select('totp_enabled').where('_id', '=', userId).executeTakeFirstOrThrow()).totp_enabled);
    const start = () => h.request({ method: 'POST', url: '/v1/auth/otp/start', body: { tenant_id: tenant, channel: 'email', destination: email } });
    const verify = (challenge: string, code: string) => h.request({ method: 'POST', url: '/v1/auth/otp/verify', body: { challenge_id: challenge, code } });

    /** The 500 of an injected audit failure: a problem, without the database's message. */
    function expectRolledBack(response: LightMyRequestResponse): void {
      expectProblem(response, 500, 'internal_error');
      expect(response.body).not.toMatch(/injected|audit_logs|trigger/i);
    }

    /** A new challenge and the code it e-mailed. */
    async function challenge(): Promise<{ id: string; code: string }> {
      offset += 61_000;
      const before = smtp.messages.length;
      const started = await start();
      expect(started.statusCode, started.body).toBe(202);
      await waitFor(smtp.messages, before + 1);
      return { id: String(started.json().challenge_id), code: codeIn(smtp.messages[before]) };
    }

    let otpToken = '';
    let totp: TOTP;
    let recovery: string[] = [];
    /** A TOTP code of the next time step (an accepted step is never accepted again). */
    const nextCode = () => {
      offset += 30_000;
      return totp.generate({ timestamp: now() });
    };

    it('otp_issued: a failed entry leaves no challenge, no resend slot and no message; then exactly one entry', async () => {
      offset += 61_000;
      const [before, sent] = [await challengesOf('otp_challenges'), smtp.messages.length];
      await failure.during('otp_issued', async () => expectRolledBack(await start()));
      expect(await challengesOf('otp_challenges')).toBe(before);
      expect(await entries('otp_issued')).toBe(0);
      // The resend slot rolled back too: a new start within the minute is not refused.
      const started = await start();
      expect(started.statusCode, started.body).toBe(202);
      await waitFor(smtp.messages, sent + 1);
      expect(smtp.messages).toHaveLength(sent + 1);
      expect(await challengesOf('otp_challenges')).toBe(before + 1);
      expect(await entries('otp_issued')).toBe(1);
    });

    it('sign_in (one-time password): a failed entry leaves the challenge unspent; then exactly one entry', async () => {
      const { id, code } = await challenge();
      await failure.during('sign_in', async () => expectRolledBack(await verify(id, code)));
      const row = await h.database.db.selectFrom('otp_challenges').select('used_at').where('_id', '=', id).executeTakeFirstOrThrow();
      expect(row.used_at).toBeNull();
      expect(await entries('sign_in')).toBe(0);
      const answer = await verify(id, code);
      expect(answer.statusCode, answer.body).toBe(200);
      otpToken = String(answer.json().access_token);
      expect(await entries('sign_in')).toBe(1);
    });

    it('totp_enrolled: a failed entry leaves no TOTP row; then exactly one entry', async () => {
      const enroll = () => h.request({ method: 'POST', url: '/v1/auth/totp/enroll', token: otpToken });
      await failure.during('totp_enrolled', async () => expectRolledBack(await enroll()));
      expect(await totpRow()).toBeUndefined();
      const enrolled = await enroll();
      expect(enrolled.statusCode, enrolled.body).toBe(200);
      totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
      recovery = enrolled.json().recovery_codes as string[];
      expect(await totpRow()).toMatchObject({ enabled: 0 });
      expect(await entries('totp_enrolled')).toBe(1);
    });

    it('totp_activated: a failed entry leaves TOTP off (row, step and users.totp_enabled, with no data entry); then exactly one entry', async () => {
      const code = nextCode();
      const activate = () => h.request({ method: 'POST', url: '/v1/auth/totp/activate', token: otpToken, body: { code } });
      await failure.during('totp_activated', async () => expectRolledBack(await activate()));
      expect(await totpRow()).toMatchObject({ enabled: 0, last_step: -1 });
      expect(await totpFlag()).toBe(false);
      expect(await entries('totp-enable')).toBe(0);
      expect(await entries('totp_activated')).toBe(0);
      // The step was not spent: the same code activates now.
      const activated = await activate();
      expect(activated.statusCode, activated.body).toBe(204);
      expect(await totpRow()).toMatchObject({ enabled: 1 });
      expect(await totpFlag()).toBe(true);
      expect(await entries('totp-enable')).toBe(1);
      expect(await entries('totp_activated')).toBe(1);
    });

    it('sign_in (step-up): a failed entry leaves the time step unclaimed; then exactly one entry', async () => {
      const code = nextCode();
      const stepUp = () => h.request({ method: 'POST', url: '/v1/auth/totp/step-up', token: otpToken, body: { code } });
      const [signIns, step] = [await entries('sign_in'), (await totpRow())?.last_step];
      await failure.during('sign_in', async () => expectRolledBack(await stepUp()));
      expect((await totpRow())?.last_step).toBe(step);
      expect(await entries('sign_in')).toBe(signIns);
      const stepped = await stepUp();
      expect(stepped.statusCode, stepped.body).toBe(200);
      expect(await entries('sign_in')).toBe(signIns + 1);
    });

    it('mfa_challenge: a failed entry leaves the one-time code unspent and no mfa challenge; then exactly one entry', async () => {
      const { id, code } = await challenge();
      const [before, events] = [await challengesOf('mfa_challenges'), await entries('mfa_challenge')];
      await failure.during('mfa_challenge', async () => expectRolledBack(await verify(id, code)));
      expect(await challengesOf('mfa_challenges')).toBe(before);
      expect((await h.database.db.selectFrom('otp_challenges').select('used_at').where('_id', '=', id).executeTakeFirstOrThrow()).used_at).toBeNull();
      expect(await entries('mfa_challenge')).toBe(events);
      const answer = await verify(id, code);
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json()).toMatchObject({ mfa_required: true });
      expect(await challengesOf('mfa_challenges')).toBe(before + 1);
      expect(await entries('mfa_challenge')).toBe(events + 1);
    });

    /** An mfa_token from a fresh one-time password sign-in (the user has TOTP). */
    async function mfaToken(): Promise<string> {
      const { id, code } = await challenge();
      const answer = await verify(id, code);
      expect(answer.statusCode, answer.body).toBe(200);
      return String(answer.json().mfa_token);
    }
    const mfaUsed = async () => (await h.database.db.selectFrom('mfa_challenges').select('used_at').where('user_id', '=', userId).orderBy('expires_at', 'desc').executeTakeFirstOrThrow()).used_at;

    it('sign_in (second factor): a failed entry leaves the mfa challenge and the time step unspent; then exactly one entry', async () => {
      const token = await mfaToken();
      const code = nextCode();
      const second = () => h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: token, code } });
      const [signIns, step] = [await entries('sign_in'), (await totpRow())?.last_step];
      await failure.during('sign_in', async () => expectRolledBack(await second()));
      expect(await mfaUsed()).toBeNull();
      expect((await totpRow())?.last_step).toBe(step);
      expect(await entries('sign_in')).toBe(signIns);
      const answer = await second();
      expect(answer.statusCode, answer.body).toBe(200);
      expect(await entries('sign_in')).toBe(signIns + 1);
    });

    it('recovery_code_used: a failed entry leaves the recovery code unspent (and no sign-in); then exactly one entry', async () => {
      const token = await mfaToken();
      const withRecovery = () => h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: token, code: recovery[0] } });
      const signIns = await entries('sign_in');
      await failure.during('recovery_code_used', async () => expectRolledBack(await withRecovery()));
      expect(JSON.parse(String((await totpRow())?.recovery_codes))).toHaveLength(10);
      expect(await mfaUsed()).toBeNull();
      expect(await entries('sign_in')).toBe(signIns);
      const answer = await withRecovery();
      expect(answer.statusCode, answer.body).toBe(200);
      expect(JSON.parse(String((await totpRow())?.recovery_codes))).toHaveLength(9);
      expect(await entries('recovery_code_used')).toBe(1);
      expect(await entries('sign_in')).toBe(signIns + 1);
    });

    it('totp_disabled: a failed entry leaves TOTP on (row and users.totp_enabled); then exactly one entry', async () => {
      const code = nextCode();
      const disable = () => h.request({ method: 'POST', url: '/v1/auth/totp/disable', token: otpToken, body: { code } });
      await failure.during('totp_disabled', async () => expectRolledBack(await disable()));
      expect(await totpRow()).toMatchObject({ enabled: 1 });
      expect(await totpFlag()).toBe(true);
      expect(await entries('totp-disable')).toBe(0);
      expect(await entries('totp_disabled')).toBe(0);
      const disabled = await disable();
      expect(disabled.statusCode, disabled.body).toBe(204);
      expect(await totpRow()).toBeUndefined();
      expect(await totpFlag()).toBe(false);
      expect(await entries('totp-disable')).toBe(1);
      expect(await entries('totp_disabled')).toBe(1);
    });
  });
});
