import { Secret, TOTP } from 'otpauth';
import { getResource } from '../../src/registry/index.js';
import { asSystem } from '../../src/core/principal.js';
import type { Harness } from './harness.js';
import { codeIn, waitFor } from './mail-and-sms.js';
import type { Received } from './mail-and-sms.js';

/** Creates an end user in `tenant` as the system operator; returns its id. */
export async function createUserIn(h: Harness, tenant: string, level: 'tenant' | 'parent_tenant', body: Record<string, unknown>): Promise<string> {
  const scope = { nodeId: tenant, level, path: `/${tenant}/` };
  const { record } = await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), body);
  return String(record._id);
}

export interface SignInOptions {
  /** Enrol and activate TOTP, then step up: the token carries `amr: ["otp","totp"]`. */
  readonly totp?: boolean;
  /** Moves the service's injected clock forward (past the resend cooldown, to the next TOTP step). */
  readonly advance: (ms: number) => void;
  /** The service's current time in ms (for TOTP codes). */
  readonly now: () => number;
}

/**
 * A user token through the real sign-in: a one-time password by e-mail (read from the
 * in-process SMTP server), and with `totp` the enrolment and RFC 9470 step-up.
 */
export async function signInByEmail(h: Harness, smtp: { readonly messages: Received[] }, tenant: string, email: string, options: SignInOptions): Promise<string> {
  options.advance(61_000);
  const before = smtp.messages.length;
  const started = await h.request({ method: 'POST', url: '/v1/auth/otp/start', body: { tenant_id: tenant, channel: 'email', destination: email } });
  if (started.statusCode !== 202) throw new Error(`otp/start failed: ${started.body}`);
  await waitFor(smtp.messages, before + 1);
  const verified = await h.request({
    method: 'POST',
    url: '/v1/auth/otp/verify',
    body: { challenge_id: started.json().challenge_id, code: codeIn(smtp.messages.slice(before).find((m) => m.to === email)) },
  });
  if (verified.statusCode !== 200) throw new Error(`sign-in failed: ${verified.body}`);
  const otpToken = verified.json().access_token as string;
  if (!options.totp) return otpToken;
  const enrolled = await h.request({ method: 'POST', url: '/v1/auth/totp/enroll', token: otpToken });
  const totp = new TOTP({ secret: Secret.fromBase32(String(enrolled.json().secret)), algorithm: 'SHA1', digits: 6, period: 30 });
  const activated = await h.request({ method: 'POST', url: '/v1/auth/totp/activate', token: otpToken, body: { code: totp.generate({ timestamp: options.now() }) } });
  if (activated.statusCode !== 204) throw new Error(`TOTP activation failed: ${activated.body}`);
  options.advance(30_000);
  const stepped = await h.request({ method: 'POST', url: '/v1/auth/totp/step-up', token: otpToken, body: { code: totp.generate({ timestamp: options.now() }) } });
  if (stepped.statusCode !== 200) throw new Error(`step-up failed: ${stepped.body}`);
  return stepped.json().access_token as string;
}
