import { decodeJwt } from 'jose';
import { Secret } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../../src/registry/index.js';
import { DataKey } from '../../../src/security/data-key.js';
import { asSystem } from '../../../src/core/principal.js';
import { matchingStep, totpGenerator, totpPolicy } from '../../../src/sign-in/totp-codes.js';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { codeIn, startSmsReceiver, startSmtp, waitFor } from '../../support/mail-and-sms.js';
import { expectProblem } from '../../support/problem.js';

/** RFC 6238 Appendix B: the seeds (ASCII) and the expected 8-digit values per time and hash. */
const seeds = {
  SHA1: '12345678901234567890',
  SHA256: '12345678901234567890123456789012',
  SHA512: '1234567890123456789012345678901234567890123456789012345678901234',
} as const;
const vectors: readonly { time: number; SHA1: string; SHA256: string; SHA512: string }[] = [
  { time: 59, SHA1: '94287082', SHA256: '46119246', SHA512: '90693936' },
  { time: 1111111109, SHA1: '07081804', SHA256: '68084774', SHA512: '25091201' },
  { time: 1111111111, SHA1: '14050471', SHA256: '67062674', SHA512: '99943326' },
  { time: 1234567890, SHA1: '89005924', SHA256: '91819424', SHA512: '93441116' },
  { time: 2000000000, SHA1: '69279037', SHA256: '90698825', SHA512: '38618901' },
  { time: 20000000000, SHA1: '65353130', SHA256: '77737706', SHA512: '47863826' },
];
const algorithms = ['SHA1', 'SHA256', 'SHA512'] as const;
const seed = (algorithm: keyof typeof seeds) => Secret.fromUTF8(seeds[algorithm]);

describe("RFC 6238 Appendix B through the service's TOTP construction", () => {
  for (const algorithm of algorithms) {
    it.each(vectors)(`${algorithm} at T=$time s`, (vector) => {
      const at = vector.time * 1000;
      const expected = vector[algorithm];
      // The 8-digit value of the appendix, from the generator the service uses.
      const eight = totpGenerator(seed(algorithm), 'rfc6238', { algorithm, digits: 8 });
      expect(eight.generate({ timestamp: at })).toBe(expected);
      expect(matchingStep(eight, expected, at)).toBe(Math.floor(vector.time / 30));
      // The service's own configuration (SHA-1, 6 digits): HOTP truncation keeps the last 6 digits.
      const six = totpGenerator(seed(algorithm), 'rfc6238', { algorithm });
      expect(six.generate({ timestamp: at })).toBe(expected.slice(2));
    });
  }

  it('uses SHA-1, 6 digits, 30 s and one step either side (docs/end-users.md)', () => {
    expect(totpPolicy).toEqual({ algorithm: 'SHA1', digits: 6, period: 30, window: 1 });
    const totp = totpGenerator(seed('SHA1'), 'rfc6238');
    const code = '279037'; // 2000000000 s, step 66666666
    expect(matchingStep(totp, code, 2_000_000_000_000)).toBe(66_666_666);
    expect(matchingStep(totp, code, 2_000_000_000_000 + 30_000)).toBe(66_666_666);
    expect(matchingStep(totp, code, 2_000_000_000_000 - 30_000)).toBe(66_666_666);
    expect(matchingStep(totp, code, 2_000_000_000_000 + 60_000)).toBeNull();
    expect(matchingStep(totp, '279038', 2_000_000_000_000)).toBeNull();
  });

  it('finds no step for a code of anything but ASCII digits, whatever its bytes (no throw)', () => {
    const totp = totpGenerator(seed('SHA1'), 'rfc6238');
    for (const code of ['27903é', '٢٧٩٠٣٧', '２７９０３７', '27903 ', '2790370', '27903', '']) expect(() => matchingStep(totp, code, 2_000_000_000_000), code).not.toThrow();
    for (const code of ['27903é', '٢٧٩٠٣٧', '２７９０３７']) expect(matchingStep(totp, code, 2_000_000_000_000)).toBeNull();
  });
});

describe.each(dialects)('RFC 6238 SHA-1 vectors end to end on %s', (dialect) => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let sms: Awaited<ReturnType<typeof startSmsReceiver>>;
  let tenant: string;
  // The service's clock is set to the vectors' times (seconds), then runs on in real time.
  let base = Date.now();
  let setAt = Date.now();
  const now = () => base + (Date.now() - setAt);
  const travel = (seconds: number) => {
    base = seconds * 1000;
    setAt = Date.now();
  };
  const email = 'vectors@example.test';
  const phone = '+4915155556666';

  beforeAll(async () => {
    [smtp, sms] = await Promise.all([startSmtp(), startSmsReceiver()]);
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url, SMS_WEBHOOK_URL: sms.url } });
    tenant = await h.tenant('Vectors');
    const scope = { nodeId: tenant, level: 'tenant' as const, path: `/${tenant}/` };
    await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), { email, phone, role: 'admin' });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
    await sms.close();
  });

  /** A one-time-password sign-in by e-mail, or by SMS (a second one within the e-mail cooldown). */
  async function signIn(channel: 'email' | 'sms' = 'email') {
    const receiver = channel === 'email' ? smtp : sms;
    const before = receiver.messages.length;
    const started = await h.request({ method: 'POST', url: '/v1/auth/otp/start', body: { tenant_id: tenant, channel, destination: channel === 'email' ? email : phone } });
    expect(started.statusCode, started.body).toBe(202);
    await waitFor(receiver.messages, before + 1);
    const answer = await h.request({ method: 'POST', url: '/v1/auth/otp/verify', body: { challenge_id: started.json().challenge_id, code: codeIn(receiver.messages[before]) } });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json() as { access_token?: string; mfa_token?: string };
  }

  it("activates, steps up and signs in with the appendix's codes, each accepted once", async () => {
    travel(1111111000);
    const token = (await signIn()).access_token as string;
    expect((await h.request({ method: 'POST', url: '/v1/auth/totp/enroll', token })).statusCode).toBe(200);
    // The enrolled secret replaced by the RFC seed, encrypted under the service's data key as enrolment stores it.
    const dataKey = DataKey.open({ dataKey: h.config.dataKey, dataDir: h.config.dataDir });
    const user = await h.database.db.selectFrom('users').select('_id').where('email', '=', email).executeTakeFirstOrThrow();
    await h.database.db
      .updateTable('user_totp')
      .set({ secret: dataKey.encrypt(seed('SHA1').base32) })
      .where('user_id', '=', String(user._id))
      .execute();

    travel(1111111109);
    expect((await h.request({ method: 'POST', url: '/v1/auth/totp/activate', token, body: { code: '081804' } })).statusCode).toBe(204);
    // The same code again, in its own time step: refused.
    expectProblem(await h.request({ method: 'POST', url: '/v1/auth/totp/step-up', token, body: { code: '081804' } }), 400, 'invalid_grant');
    travel(1111111111);
    const stepped = await h.request({ method: 'POST', url: '/v1/auth/totp/step-up', token, body: { code: '050471' } });
    expect(stepped.statusCode, stepped.body).toBe(200);

    for (const [time, code] of [
      [1234567890, '005924'],
      [2000000000, '279037'],
    ] as const) {
      travel(time);
      const { mfa_token: mfaToken } = await signIn();
      expect(mfaToken).toEqual(expect.any(String));
      const wrong = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfaToken, code: '050471' } });
      expectProblem(wrong, 400, 'invalid_grant');
      const full = await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: mfaToken, code } });
      expect(full.statusCode, full.body).toBe(200);
      const claims = decodeJwt(String(full.json().access_token));
      expect(claims.amr).toEqual(['otp', 'totp']);
      // Accepted once: a new sign-in in the same time step cannot reuse it.
      const again = await signIn('sms');
      expectProblem(await h.request({ method: 'POST', url: '/v1/auth/totp/verify', body: { mfa_token: again.mfa_token, code } }), 400, 'invalid_grant');
    }
  });
});
