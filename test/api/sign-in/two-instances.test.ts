import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import type { App } from '../../../src/app.js';
import { loadConfig } from '../../../src/config/config.js';
import type { Database, DialectName } from '../../../src/db/dialect.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { openPostgres } from '../../../src/db/postgres.js';
import { openSqlite } from '../../../src/db/sqlite.js';
import { getResource } from '../../../src/registry/index.js';
import { asSystem } from '../../../src/core/principal.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { codeIn, startSmsReceiver, startSmtp, waitFor } from '../../support/mail-and-sms.js';
import { eventually } from '../../support/poll.js';
import type { Received } from '../../support/mail-and-sms.js';
import { expectProblem } from '../../support/problem.js';

type Receiver = Awaited<ReturnType<typeof startSmtp>>;

/**
 * Two instances of the service on one database (one SQLite file, or one PostgreSQL
 * database), each with its own connection and caches, sharing only what docs/operations.md
 * "Several instances" says they share: the database, the data key and the signing keys.
 * One-time codes, daily caps and TOTP replay protection must hold across them (issue 13).
 */
describe.each(dialects)('sign-in across two instances on %s', (dialect: DialectName) => {
  let apps: [App, App];
  let databases: Database[];
  let smtp: Receiver;
  let sms: Receiver;
  let dataDir: string;
  let tenant: string;
  let config: ReturnType<typeof loadConfig>;
  let keys: SigningKeyStore;
  let offset = 0;
  const now = () => Date.now() + offset;
  const phoneOf = (i: number) => `+491510000${String(i).padStart(4, '0')}`;

  beforeAll(async () => {
    [smtp, sms] = await Promise.all([startSmtp(), startSmsReceiver()]);
    dataDir = mkdtempSync(join(tmpdir(), 'booking-sign-in-'));
    config = loadConfig({
      DATA_DIR: dataDir,
      PUBLIC_URL: 'http://api.test',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_ENABLED: 'false',
      SMTP_URL: smtp.url,
      SMS_WEBHOOK_URL: sms.url,
      OTP_DAILY_EMAIL_LIMIT: '3',
      OTP_DAILY_SMS_LIMIT: '3',
    });
    const url = dialect === 'postgres' ? await freshPostgresUrl() : join(dataDir, 'shared.sqlite');
    const open = () => (dialect === 'postgres' ? openPostgres({ connectionString: url, poolSize: 10, statementTimeoutMs: 5000 }) : openSqlite(url));
    databases = [open(), open()];
    await migrateToLatest(databases[0] as Database);
    keys = await SigningKeyStore.open({ file: join(dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
    apps = [
      await buildApp(config, { database: databases[0] as Database, keys, logger: false, clock: { now } }),
      await buildApp(config, { database: databases[1] as Database, keys, logger: false, clock: { now } }),
    ];
    for (const app of apps) await app.server.ready();
    const system = { principal: asSystem(), clientIp: null, requestId: null };
    tenant = String((await apps[0].resources.create(system, getResource('tenants'), { name: 'Two instances', level: 'tenant' })).record._id);
    const context = { principal: { ...asSystem(), scope: { nodeId: tenant, level: 'tenant' as const, path: `/${tenant}/` } }, clientIp: null, requestId: null };
    for (let i = 1; i <= 10; i += 1) {
      await apps[0].resources.create(context, getResource('users'), { email: `user${i}@two.test`, phone: phoneOf(i), role: 'admin' });
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.server.close();
    for (const database of databases) await database.close();
    await smtp.close();
    await sms.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const request = (app: App, url: string, body: unknown, token?: string): Promise<LightMyRequestResponse> =>
    app.server.inject({
      method: 'POST',
      url,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const start = (app: App, channel: 'email' | 'sms', destination: string) => request(app, '/v1/auth/otp/start', { tenant_id: tenant, channel, destination });
  const verify = (app: App, challenge: string, code: string) => request(app, '/v1/auth/otp/verify', { challenge_id: challenge, code });
  /** Messages of `channel` both instances have finished handing over (sent or failed). */
  const handedOver = async (channel: 'email' | 'sms'): Promise<number> => {
    let total = 0;
    for (const app of apps) {
      const metrics = await app.server.inject({ method: 'GET', url: '/metrics', headers: { 'x-forwarded-for': '127.0.0.1' } });
      for (const outcome of ['sent', 'failed']) total += Number(new RegExp(`^otp_messages_total\\{channel="${channel}",outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics.body)?.[1] ?? 0);
    }
    return total;
  };
  /**
   * Waits until the `queued` messages of `channel` queued since `before` (a {@link handedOver}
   * count) have all been handed over: then nothing else is on its way, with no fixed pause.
   */
  const settle = (channel: 'email' | 'sms', before: number, queued: number) =>
    eventually(
      () => handedOver(channel),
      (n) => n >= before + queued,
      `${queued} ${channel} messages to be handed over`,
    );

  /** Each test starts on a day of its own: no daily counts, every cooldown over. */
  const freshDay = async () => {
    await (databases[0] as Database).db.deleteFrom('otp_daily_counts').execute();
    offset += 61_000;
  };

  /** Signs `email` in with a one-time code and turns TOTP on: the session's token and the user's authenticator. */
  async function enrolledTotp(email: string): Promise<{ token: string; totp: TOTP; recoveryCodes: string[] }> {
    const first = await challenge(apps[0], email);
    const token = (await verify(apps[0], first.id, first.code)).json().access_token as string;
    const enrolled = await request(apps[1], '/v1/auth/totp/enroll', undefined, token);
    const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
    expect((await request(apps[0], '/v1/auth/totp/activate', { code: totp.generate({ timestamp: now() }) }, token)).statusCode).toBe(204);
    return { token, totp, recoveryCodes: enrolled.json().recovery_codes as string[] };
  }

  /** A code that none of the steps `totp` accepts now (t−1, t, t+1) matches. */
  function wrongTotp(totp: TOTP): string {
    const valid = new Set([-30_000, 0, 30_000].map((d) => totp.generate({ timestamp: now() + d })));
    return ['000000', '111111', '222222', '333333'].find((code) => !valid.has(code)) ?? '444444';
  }

  /** An e-mail challenge for `email` started on `app`, and its code. */
  async function challenge(app: App, email: string, channel: 'email' | 'sms' = 'email', destination = email): Promise<{ id: string; code: string }> {
    const receiver = channel === 'email' ? smtp : sms;
    const before = receiver.messages.length;
    const started = await start(app, channel, destination);
    expect(started.statusCode, started.body).toBe(202);
    await waitFor(receiver.messages, before + 1);
    return { id: started.json().challenge_id as string, code: codeIn(receiver.messages.find((m: Received, i: number) => i >= before && m.to === destination)) };
  }

  it('a daily cap of 3 stops the 4th e-mail with 429 daily_limit_reached, whichever instance is asked, and it never reaches the SMTP server', async () => {
    await freshDay();
    const before = smtp.messages.length;
    const answers = [];
    const handed = await handedOver('email');
    for (const [i, app] of [apps[0], apps[1], apps[0]].entries()) answers.push(await start(app, 'email', `user${i + 1}@two.test`));
    expect(answers.map((a) => a.statusCode)).toEqual([202, 202, 202]);
    const fourth = await start(apps[1], 'email', 'user4@two.test');
    expectProblem(fourth, 429, 'daily_limit_reached');
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThan(0);
    expectProblem(await start(apps[0], 'email', 'user5@two.test'), 429, 'daily_limit_reached');
    // Asked again at once: still the cap, not a resend cooldown (no code was sent).
    const again = await start(apps[0], 'email', 'user4@two.test');
    expectProblem(again, 429, 'daily_limit_reached');
    await settle('email', handed, 3);
    expect(
      smtp.messages
        .slice(before)
        .map((m) => m.to)
        .sort(),
    ).toEqual(['user1@two.test', 'user2@two.test', 'user3@two.test']);
  });

  it('10 SMS to 10 users asked for at once over both instances: 3 accepted, 7 refused, exactly those 3 at the HTTP receiver', async () => {
    await freshDay();
    const before = sms.messages.length;
    const phones = Array.from({ length: 10 }, (_, i) => phoneOf(i + 1));
    const handed = await handedOver('sms');
    const answers = await Promise.all(phones.map((phone, i) => start(apps[i % 2] as App, 'sms', phone)));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 202)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    for (const refused of answers.filter((a) => a.statusCode === 429)) expect(refused.json().code).toBe('daily_limit_reached');
    const counted = await (databases[1] as Database).db.selectFrom('otp_daily_counts').select('sent').where('channel', '=', 'sms').executeTakeFirstOrThrow();
    expect(Number(counted.sent)).toBe(3);
    // Each refused phone asked again at once, on the other instance: still the cap, not a
    // resend cooldown (no SMS was sent), and still nothing counted or sent.
    for (const [i, phone] of phones.entries()) {
      if (answers[i]?.statusCode !== 429) continue;
      const again = await start(apps[(i + 1) % 2] as App, 'sms', phone);
      expectProblem(again, 429, 'daily_limit_reached');
      expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
    }
    await settle('sms', handed, 3);
    const accepted = phones.filter((_, i) => answers[i]?.statusCode === 202);
    expect(
      sms.messages
        .slice(before)
        .map((m) => m.to)
        .sort(),
    ).toEqual(accepted.sort());
  });

  it('50 parallel wrong guesses over both instances: 5 counted, then the challenge is dead — also for the right code', async () => {
    await freshDay();
    const { id, code } = await challenge(apps[0], 'user1@two.test');
    const wrong = code === '000000' ? '111111' : '000000';
    const guesses = await Promise.all(Array.from({ length: 50 }, (_, i) => verify(apps[i % 2] as App, id, wrong)));
    for (const guess of guesses) expectProblem(guess, 400, 'invalid_grant');
    const row = await (databases[1] as Database).db.selectFrom('otp_challenges').select(['attempts', 'used_at']).where('_id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.attempts)).toBe(5);
    expect(row.used_at).toBeNull();
    expectProblem(await verify(apps[0], id, code), 400, 'invalid_grant');
    expectProblem(await verify(apps[1], id, code), 400, 'invalid_grant');
    // The trail agrees: five counted tries, one lockout, the rest refused as a dead challenge.
    for (const app of apps) await app.securityEvents.flush();
    const rows = await (databases[0] as Database).db
      .selectFrom('audit_logs')
      .select(['action', 'new_values'])
      .where('category', '=', 'security')
      .where('action', 'in', ['sign_in_failed', 'sign_in_locked'])
      .execute();
    const details = rows.map((row) => ({ action: row.action, ...((typeof row.new_values === 'string' ? JSON.parse(row.new_values) : row.new_values) as { reason?: string; challenge_id?: string }) }));
    const reasons = details.filter((d) => d.challenge_id === id).map((d) => `${d.action}:${d.reason ?? ''}`);
    expect(reasons.filter((r) => r === 'sign_in_failed:wrong_code')).toHaveLength(5);
    expect(reasons.filter((r) => r === 'sign_in_locked:')).toHaveLength(1);
    expect(reasons.filter((r) => r === 'sign_in_failed:locked')).toHaveLength(47);
  });

  it('the right code racing 4 or 8 wrong ones over both instances: one story in answers, row and trail, as if the requests had come one by one', async () => {
    const trail = async (id: string) => {
      for (const app of apps) await app.securityEvents.flush();
      const rows = await (databases[0] as Database).db
        .selectFrom('audit_logs')
        .select(['action', 'new_values'])
        .where('category', '=', 'security')
        .where('action', 'in', ['sign_in', 'sign_in_failed', 'sign_in_locked'])
        .execute();
      return rows
        .map((row) => ({ action: String(row.action), ...((typeof row.new_values === 'string' ? JSON.parse(row.new_values) : row.new_values) as { reason?: string; challenge_id?: string }) }))
        .filter((entry) => entry.challenge_id === id || (entry.action === 'sign_in' && entry.challenge_id === undefined));
    };
    for (let round = 0; round < 8; round += 1) {
      await freshDay();
      const signInsBefore = (await trail('none')).length;
      const { id, code } = await challenge(apps[round % 2] as App, 'user3@two.test');
      const wrong = code === '000000' ? '111111' : '000000';
      // Four wrong codes cannot kill the challenge, eight can. The right code goes out first,
      // last or in between: its check and its spend race the wrong ones' tries.
      const sent = round % 2 === 0 ? 5 : 9;
      const codes = Array.from({ length: sent }, (_, i) => (i === (round * 3) % sent ? code : wrong));
      const answers = await Promise.all(codes.map((c, i) => verify(apps[i % 2] as App, id, c)));
      const rightAnswer = answers[codes.indexOf(code)] as LightMyRequestResponse;
      for (const [i, answer] of answers.entries()) if (codes[i] === wrong) expectProblem(answer, 400, 'invalid_grant');
      const row = await (databases[1] as Database).db.selectFrom('otp_challenges').select(['attempts', 'used_at']).where('_id', '=', id).executeTakeFirstOrThrow();
      const entries = await trail(id);
      const counted = entries.filter((e) => e.action === 'sign_in_failed' && e.reason === 'wrong_code');
      const locked = entries.filter((e) => e.action === 'sign_in_locked');
      const signedIn = entries.filter((e) => e.action === 'sign_in').length - signInsBefore;
      // With fewer than five wrong codes, no order of them refuses the right one.
      if (sent === 5) expect(rightAnswer.statusCode, rightAnswer.body).toBe(200);
      if (rightAnswer.statusCode === 200) {
        // The right code came among the first five tries: the wrong ones before it were counted, none after it.
        expect(row.used_at).not.toBeNull();
        expect(counted.length, JSON.stringify(entries)).toBeLessThanOrEqual(4);
        expect(Number(row.attempts)).toBe(counted.length + 1);
        expect(locked, 'a challenge that signed in was never locked').toEqual([]);
        expect(signedIn).toBe(1);
      } else {
        // Five wrong tries came first: the challenge died, and the right code with it.
        expectProblem(rightAnswer, 400, 'invalid_grant');
        expect(row.used_at).toBeNull();
        expect(Number(row.attempts)).toBe(5);
        expect(counted).toHaveLength(5);
        expect(locked).toHaveLength(1);
        expect(signedIn).toBe(0);
      }
    }
  });

  it('the same TOTP code sent to both instances at once is accepted once (step-up and sign-in)', async () => {
    await freshDay();
    const first = await challenge(apps[1], 'user2@two.test');
    const token = (await verify(apps[1], first.id, first.code)).json().access_token as string;
    const enrolled = await request(apps[0], '/v1/auth/totp/enroll', undefined, token);
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
    expect((await request(apps[1], '/v1/auth/totp/activate', { code: totp.generate({ timestamp: now() }) }, token)).statusCode).toBe(204);

    for (let round = 0; round < 5; round += 1) {
      offset += 30_000;
      const code = totp.generate({ timestamp: now() });
      const stepUps = await Promise.all(apps.map((app) => request(app, '/v1/auth/totp/step-up', { code }, token)));
      expect(stepUps.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    }

    // Two sign-ins waiting for their second factor (e-mail and SMS), finished with one code on both instances at once.
    offset += 61_000;
    const byEmail = await challenge(apps[0], 'user2@two.test');
    const bySms = await challenge(apps[1], 'user2@two.test', 'sms', phoneOf(2));
    const mfaTokens = [(await verify(apps[0], byEmail.id, byEmail.code)).json().mfa_token as string, (await verify(apps[1], bySms.id, bySms.code)).json().mfa_token as string];
    offset += 30_000;
    const code = totp.generate({ timestamp: now() });
    const finished = await Promise.all(apps.map((app, i) => request(app, '/v1/auth/totp/verify', { mfa_token: mfaTokens[i], code })));
    expect(finished.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });

  it('a right TOTP code racing 4 wrong ones over both instances: accepted, and no lock-out, as if they had come one by one', async () => {
    await freshDay();
    const { token, totp } = await enrolledTotp('user4@two.test');
    const userId = String(decodeJwt(token).sub);
    const locks = async () => {
      for (const app of apps) await app.securityEvents.flush();
      return (await (databases[0] as Database).db.selectFrom('audit_logs').select('_id').where('action', '=', 'totp_locked').where('actor_id', '=', userId).execute()).length;
    };
    for (let round = 0; round < 6; round += 1) {
      // Four refused codes are free (docs/end-users.md, "Lock-out after wrong codes"): a run starts from none.
      await (databases[0] as Database).db.updateTable('user_totp').set({ failed_tries: 0, locked_until: 0 }).where('user_id', '=', userId).execute();
      offset += 30_000;
      const wrong = wrongTotp(totp);
      const codes = Array.from({ length: 5 }, (_, i) => (i === round % 5 ? totp.generate({ timestamp: now() }) : wrong));
      const before = await locks();
      const answers = await Promise.all(codes.map((code, i) => request(apps[i % 2] as App, '/v1/auth/totp/step-up', { code }, token)));
      // In any order of them, the right code is at most the fifth try: it is accepted and ends the run of refusals.
      expect(answers.map((a) => a.statusCode).sort(), answers.map((a) => a.body).join('\n')).toEqual([200, 400, 400, 400, 400]);
      expect(await locks(), 'no lock-out was engaged').toBe(before);
    }
    // The same race at the sign-in's second factor, on one mfa_token: the right code spends it
    // (4 wrong ones cannot use up its 5 tries); wrong ones before it were counted, and it
    // reset the count; wrong ones after it met a spent token and count nothing.
    for (let round = 0; round < 5; round += 1) {
      await (databases[0] as Database).db.updateTable('user_totp').set({ failed_tries: 0, locked_until: 0 }).where('user_id', '=', userId).execute();
      await freshDay();
      const otp = await challenge(apps[round % 2] as App, 'user4@two.test');
      const mfaToken = String((await verify(apps[round % 2] as App, otp.id, otp.code)).json().mfa_token);
      offset += 30_000;
      const wrong = wrongTotp(totp);
      const codes = Array.from({ length: 5 }, (_, i) => (i === round ? totp.generate({ timestamp: now() }) : wrong));
      const answers = await Promise.all(codes.map((code, i) => request(apps[i % 2] as App, '/v1/auth/totp/verify', { mfa_token: mfaToken, code })));
      expect(answers.map((a) => a.statusCode).sort(), answers.map((a) => a.body).join('\n')).toEqual([200, 400, 400, 400, 400]);
      const row = await (databases[1] as Database).db.selectFrom('user_totp').select(['failed_tries', 'locked_until']).where('user_id', '=', userId).executeTakeFirstOrThrow();
      expect({ failed_tries: Number(row.failed_tries), locked_until: Number(row.locked_until) }, 'the accepted code ended the run of refusals').toEqual({ failed_tries: 0, locked_until: 0 });
    }
    // A wrong code that read the mfa_token live, decided after another request spent it: it
    // comes after that one, so it meets a spent token and counts nothing, not even a try of
    // the lock-out (both tries are one transaction).
    await freshDay();
    const otp = await challenge(apps[0], 'user4@two.test');
    const mfaToken = String((await verify(apps[0], otp.id, otp.code)).json().mfa_token);
    let spent: Promise<unknown> | undefined;
    const spendAfterTotpRead: KyselyPlugin = {
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        // The first read of the user's TOTP row: the code is about to be checked and decided.
        if (!spent && result.rows.some((row) => 'recovery_codes' in row)) {
          spent = (databases[0] as Database).db.updateTable('mfa_challenges').set({ used_at: now() }).where('used_at', 'is', null).where('user_id', '=', userId).execute();
          await spent;
        }
        return result;
      },
    };
    const racing = await buildApp(config, { database: { ...(databases[1] as Database), db: (databases[1] as Database).db.withPlugin(spendAfterTotpRead) }, keys, logger: false, clock: { now } });
    try {
      offset += 30_000;
      const wrong = wrongTotp(totp);
      expectProblem(await request(racing, '/v1/auth/totp/verify', { mfa_token: mfaToken, code: wrong }), 400, 'invalid_grant');
      expect(spent).toBeDefined();
      const row = await (databases[0] as Database).db.selectFrom('user_totp').select('failed_tries').where('user_id', '=', userId).executeTakeFirstOrThrow();
      expect(Number(row.failed_tries), 'a refusal after the token was spent took no try of the lock-out').toBe(0);
    } finally {
      await racing.server.close();
    }
  });

  it('two sign-ins finished at once with two different recovery codes over both instances: both accepted, each code spent', async () => {
    await freshDay();
    const { recoveryCodes } = await enrolledTotp('user5@two.test');
    for (let round = 0; round < 3; round += 1) {
      // Three messages a round: the daily cap (3) starts again each time.
      await freshDay();
      const mfaTokens: string[] = [];
      for (const app of apps) {
        offset += 61_000;
        const otp = await challenge(app, 'user5@two.test');
        mfaTokens.push(String((await verify(app, otp.id, otp.code)).json().mfa_token));
      }
      const codes = recoveryCodes.slice(2 * round, 2 * round + 2);
      const answers = await Promise.all(apps.map((app, i) => request(app, '/v1/auth/totp/verify', { mfa_token: mfaTokens[i], code: codes[i] })));
      // One by one, each would be accepted: they are different codes on different tokens.
      expect(
        answers.map((a) => a.statusCode),
        answers.map((a) => (a.statusCode === 200 ? 'a token' : a.body)).join('\n'),
      ).toEqual([200, 200]);
      // And each is spent.
      offset += 61_000;
      const otp = await challenge(apps[0], 'user5@two.test');
      const again = String((await verify(apps[0], otp.id, otp.code)).json().mfa_token);
      expectProblem(await request(apps[1], '/v1/auth/totp/verify', { mfa_token: again, code: codes[0] }), 400, 'invalid_grant');
    }
  });

  it('50 parallel wrong TOTP codes over both instances: 5 refusals counted, then TOTP is locked — also for the right code', async () => {
    await freshDay();
    const { token, totp } = await enrolledTotp('user7@two.test');
    offset += 30_000;
    const wrong = wrongTotp(totp);
    const guesses = await Promise.all(Array.from({ length: 50 }, (_, i) => request(apps[i % 2] as App, '/v1/auth/totp/step-up', { code: wrong }, token)));
    expect(guesses.filter((g) => g.statusCode === 400)).toHaveLength(5);
    for (const refused of guesses.filter((g) => g.statusCode !== 400)) expectProblem(refused, 429, 'rate_limited');
    for (const app of apps) expectProblem(await request(app, '/v1/auth/totp/step-up', { code: totp.generate({ timestamp: now() }) }, token), 429, 'rate_limited');
  });

  it('8 requests for a code to one address at once over both instances: one is sent, seven wait out the 60 s cooldown', async () => {
    await freshDay();
    const before = smtp.messages.length;
    const handed = await handedOver('email');
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => start(apps[i % 2] as App, 'email', 'user6@two.test')));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([202, 429, 429, 429, 429, 429, 429, 429]);
    for (const refused of answers.filter((a) => a.statusCode === 429)) {
      expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
    await settle('email', handed, 1);
    expect(smtp.messages.slice(before).map((m) => m.to)).toEqual(['user6@two.test']);
    // A minute later the address may have a new code. It is settled too: a message still
    // on its way would land in the next test's mailbox (a --sequence.shuffle run, seed 202).
    offset += 61_000;
    expect((await start(apps[1], 'email', 'user6@two.test')).statusCode).toBe(202);
    await settle('email', handed, 2);
    expect(smtp.messages.slice(before).map((m) => m.to)).toEqual(['user6@two.test', 'user6@two.test']);
  });
});
