import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';

const dir = mkdtempSync(join(tmpdir(), 'booking-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const readable = join(dir, 'readable.pem');
writeFileSync(readable, 'x'.repeat(40));
const unreadable = join(dir, 'unreadable.pem');
writeFileSync(unreadable, 'secret-content');
chmodSync(unreadable, 0o000);
const missing = join(dir, 'missing.pem');
const read = (path: string) => readFileSync(path, 'utf8');
const root = process.getuid?.() === 0;

/** The message loadConfig refuses `env` with (the real file reader, as main.ts passes it). */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env, read);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('a bad setting is refused by loadConfig with a message naming the variable', () => {
  it.each<[string, Record<string, string>]>([
    ['REDIS_URL', { REDIS_URL: 'notaurl' }],
    ['REDIS_URL', { REDIS_URL: 'http://x' }],
    ['REDIS_URL', { REDIS_URL: 'redis://' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'notanorigin' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://app.example/path' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://app.example/' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'https://ok.example,*' }],
    ['CORS_ORIGINS', { CORS_ORIGINS: 'ftp://files.example' }],
    ['SMTP_FROM', { SMTP_FROM: '' }],
    ['SMTP_FROM', { SMTP_FROM: 'notanaddress' }],
    ['SMTP_FROM', { SMTP_FROM: 'Name <notanaddress>' }],
    ['SMTP_FROM', { SMTP_FROM: 'a@b.example\r\nBcc: x@y.example' }],
    ['SMS_WEBHOOK_URL', { SMS_WEBHOOK_URL: 'notaurl' }],
    ['SMS_WEBHOOK_URL', { SMS_WEBHOOK_URL: 'ftp://sms.example/send' }],
    ['SMTP_URL', { SMTP_URL: 'http://x' }],
    ['SMTP_URL', { SMTP_URL: 'notaurl' }],
    ['HOST', { HOST: '999.1.1.1' }],
    ['HOST', { HOST: 'bad host' }],
    ['HOST', { HOST: '[::1]' }],
    ['HOST', { HOST: '-leading.example' }],
    ['TRUST_PROXY', { TRUST_PROXY: '1.2.3.4/99' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/8,nonsense' }],
    ['SIGNING_KEYS_FILE', { SIGNING_KEYS_FILE: missing }],
    ['TLS_CERT_FILE', { TLS_CERT_FILE: missing, TLS_KEY_FILE: readable }],
    ['TLS_KEY_FILE', { TLS_CERT_FILE: readable, TLS_KEY_FILE: missing }],
    ['TLS_CERT_FILE', { TLS_CERT_FILE: readable }],
    ['TLS_KEY_FILE', { TLS_KEY_FILE: readable }],
    ['METRICS_TOKEN_FILE', { METRICS_TOKEN_FILE: missing }],
    ['DATA_KEY_FILE', { DATA_KEY_FILE: missing }],
    ['SIGNING_KEYS_FILE', { SIGNING_KEYS_FILE: dir }],
  ])('%s: %j', (name, env) => {
    const message = refusal(env);
    expect(message.startsWith(`${name} `) || message.startsWith(`${name}:`), message).toBe(true);
    // A missing file is named by its path, so the operator knows which file to fix.
    if (env[name] === missing) expect(message).toBe(`${name}: cannot read ${JSON.stringify(missing)}: no such file`);
  });

  it.skipIf(root)('an unreadable file is named with its path, and its content never appears', () => {
    for (const name of ['SIGNING_KEYS_FILE', 'METRICS_TOKEN_FILE', 'DATA_KEY_FILE']) {
      const message = refusal({ [name]: unreadable });
      expect(message).toBe(`${name}: cannot read ${JSON.stringify(unreadable)}: permission denied`);
      expect(message).not.toContain('secret-content');
    }
  });

  it('URLs that may hold credentials are not echoed', () => {
    expect(refusal({ REDIS_URL: 'http://user:hunter2@x' })).not.toContain('hunter2');
    expect(refusal({ SMTP_URL: 'http://user:hunter2@x' })).not.toContain('hunter2');
  });
});

describe('good values still pass', () => {
  it('accepts the documented forms', () => {
    const config = loadConfig(
      {
        REDIS_URL: 'rediss://:pw@cache.internal:6380/0',
        CORS_ORIGINS: 'https://app.example, http://localhost:5173',
        SMTP_FROM: 'Booking <no-reply@example.com>',
        SMS_WEBHOOK_URL: 'https://sms.example/send?key=k',
        SMTP_URL: 'smtps://u:p@mail.example:465',
        HOST: '::',
        TRUST_PROXY: '10.0.0.0/8,127.0.0.1',
        TLS_CERT_FILE: readable,
        TLS_KEY_FILE: readable,
        SIGNING_KEYS_FILE: readable,
      },
      read,
    );
    expect(config.corsOrigins).toEqual(['https://app.example', 'http://localhost:5173']);
    expect(config.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(config.smtpFrom).toBe('Booking <no-reply@example.com>');
    for (const host of ['0.0.0.0', '127.0.0.1', 'localhost', 'api.internal', '::1', 'fe80::1']) expect(loadConfig({ HOST: host }).host).toBe(host);
    expect(loadConfig({ SMTP_FROM: 'no-reply@localhost' }).smtpFrom).toBe('no-reply@localhost');
    expect(loadConfig({}).smtpFrom).toBe('Booking service <no-reply@localhost>');
  });

  it('without a file reader (tests, scripts) paths are taken as given', () => {
    expect(loadConfig({ TLS_CERT_FILE: missing, TLS_KEY_FILE: missing }).tlsCertFile).toBe(missing);
  });
});
