import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settings } from '../../../src/config/settings.js';
import { roleCapabilities, roleReach } from '../../../src/actions/roles.js';
import type { Role } from '../../../src/actions/roles.js';
import { userEventNames } from '../../../src/security/security-events.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const doc = read('docs/end-users.md');
const rowOf = (first: string) => doc.split('\n').find((line) => line.startsWith(`| ${first} |`));

describe('docs/end-users.md stays current', () => {
  it('has the four sequence diagrams: one-time password, enrolment, OTP + TOTP sign-in, step-up', () => {
    const diagrams = doc
      .split('```mermaid')
      .slice(1)
      .map((block) => block.split('```')[0] ?? '');
    expect(diagrams).toHaveLength(4);
    for (const diagram of diagrams) expect(diagram.trim().startsWith('sequenceDiagram')).toBe(true);
    for (const path of ['/v1/auth/otp/start', '/v1/auth/totp/enroll', '/v1/auth/totp/verify', '/v1/auth/totp/step-up']) {
      expect(
        diagrams.some((d) => d.includes(path)),
        path,
      ).toBe(true);
    }
  });

  it('lists every sign-in setting with the default the service uses', () => {
    for (const setting of [
      settings.smtpUrl,
      settings.smtpFrom,
      settings.smsWebhookUrl,
      settings.otpDailySmsLimit,
      settings.otpDailyEmailLimit,
      settings.dataKey,
      settings.dataDir,
      settings.accessTokenTtlSeconds,
      settings.rateLimitToken,
    ]) {
      const row = rowOf(`\`${setting.env}\``);
      expect(row, setting.env).toBeDefined();
      expect(row).toContain(setting.defaultText === undefined ? '| unset |' : `| \`${setting.defaultText}\` |`);
    }
    expect(rowOf('`DATA_KEY`')).toContain('DATA_KEY_FILE');
  });

  it('lists each role with its reach and exactly its capabilities', () => {
    for (const role of Object.keys(roleCapabilities) as Role[]) {
      const row = rowOf(`\`${role}\``);
      expect(row, role).toBeDefined();
      const [, reach, capabilities] = (row ?? '')
        .split('|')
        .map((cell) => cell.trim())
        .slice(1);
      expect(reach).toBe(roleReach[role]);
      if (role === 'admin') expect(capabilities).toContain('every capability');
      else expect([...(capabilities ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]).sort()).toEqual([...roleCapabilities[role]].sort());
    }
  });

  it('documents every end-user security event', () => {
    for (const name of userEventNames) expect(doc, name).toMatch(new RegExp(`\`${name}\``));
  });

  it('links the OAuth2 login guide, and nothing links the retired docs/sign-in.md', () => {
    expect(doc).toContain('](oauth-login.md)');
    expect(read('README.md')).toContain('](docs/end-users.md)');
    for (const file of [
      'README.md',
      ...readdirSync(new URL('../../../docs/', import.meta.url))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ]) {
      expect(read(file), file).not.toMatch(/sign-in\.md/);
    }
  });
});
