import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createHarness } from '../../support/harness.js';

function fields(text: string): [string, string][] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([A-Za-z-]+): (.+)$/.exec(line);
      if (!match?.[1] || !match[2]) throw new Error(`not a security.txt field: ${line}`);
      return [match[1], match[2]];
    });
}

describe('GET /.well-known/security.txt', () => {
  it('is public text/plain with Contact, Expires, Preferred-Languages and Canonical by default', async () => {
    const h = await createHarness('sqlite');
    try {
      const res = await h.request({ method: 'GET', url: '/.well-known/security.txt' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      const list = fields(res.body);
      expect(list.filter(([name]) => name === 'Expires')).toHaveLength(1);
      expect(Object.fromEntries(list)).toMatchObject({
        Contact: 'mailto:security@example.com',
        'Preferred-Languages': 'en',
        Canonical: 'http://api.test/.well-known/security.txt',
      });
      const expires = Date.parse(Object.fromEntries(list).Expires ?? '');
      expect(expires).toBeGreaterThan(Date.now() + 364 * 86_400_000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 366 * 86_400_000);
    } finally {
      await h.close();
    }
  });

  it('takes contacts, expiry, policy and encryption from the settings', async () => {
    const env = {
      SECURITY_CONTACT: 'mailto:psirt@example.org, https://example.org/report',
      SECURITY_TXT_EXPIRES: '2027-06-30T12:00:00+02:00',
      SECURITY_POLICY_URL: 'https://example.org/policy',
      SECURITY_ENCRYPTION_URL: 'https://example.org/pgp.asc',
    };
    const h = await createHarness('sqlite', { env });
    try {
      const list = fields((await h.request({ method: 'GET', url: '/.well-known/security.txt' })).body);
      expect(list).toEqual([
        ['Contact', 'mailto:psirt@example.org'],
        ['Contact', 'https://example.org/report'],
        ['Expires', '2027-06-30T10:00:00.000Z'],
        ['Encryption', 'https://example.org/pgp.asc'],
        ['Policy', 'https://example.org/policy'],
        ['Preferred-Languages', 'en'],
        ['Canonical', 'http://api.test/.well-known/security.txt'],
      ]);
    } finally {
      await h.close();
    }
  });

  it('refuses bad settings at boot, naming the variable', () => {
    expect(() => loadConfig({ SECURITY_CONTACT: 'ftp://example.org' })).toThrow(/SECURITY_CONTACT/);
    expect(() => loadConfig({ SECURITY_CONTACT: 'security@example.org' })).toThrow(/SECURITY_CONTACT/);
    expect(() => loadConfig({ SECURITY_TXT_EXPIRES: 'next year' })).toThrow(/SECURITY_TXT_EXPIRES/);
    expect(() => loadConfig({ SECURITY_TXT_EXPIRES: '2027-06-30T12:00:00' })).toThrow(/SECURITY_TXT_EXPIRES/);
    expect(() => loadConfig({ SECURITY_POLICY_URL: 'http://example.org/policy' })).toThrow(/SECURITY_POLICY_URL/);
  });
});
