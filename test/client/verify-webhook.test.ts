import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.js';

// The service does not send webhooks yet: the reference implementation of Standard Webhooks
// (the `standardwebhooks` package) signs the deliveries these tests verify.
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const otherSecret = `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({ type: 'bookings.created', timestamp: '2026-11-24T12:00:00Z', data: { _id: 'b1', status: 'active' } });

function delivery(options: { secret?: string; id?: string; at?: Date; body?: string } = {}): Record<string, string> {
  const id = options.id ?? 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
  const at = options.at ?? new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(options.secret ?? secret).sign(id, at, options.body ?? body),
  };
}

async function reason(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) return undefined;
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe('verifyWebhook against signatures of the standardwebhooks reference package', () => {
  it('accepts a delivery signed by the reference and returns id, time and parsed body', async () => {
    const at = new Date(Math.floor(Date.now() / 1000) * 1000);
    const headers = delivery({ at });
    const verified = await verifyWebhook(secret, headers, body);
    expect(verified).toEqual({ id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', timestamp: at, payload: JSON.parse(body) });
    // The reference agrees with the same input.
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('accepts Headers objects, byte bodies and mixed-case header names', async () => {
    const headers = delivery();
    await expect(verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body))).resolves.toMatchObject({ payload: { type: 'bookings.created' } });
    const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(verifyWebhook(secret, shouted, body)).resolves.toMatchObject({ id: headers['webhook-id'] });
  });

  it('accepts any one of several space-separated signatures (secret rotation)', async () => {
    const old = delivery({ secret: otherSecret });
    const current = delivery();
    const both = { ...current, 'webhook-signature': `${old['webhook-signature']} ${current['webhook-signature']}` };
    await expect(verifyWebhook(secret, both, body)).resolves.toMatchObject({ payload: { data: { _id: 'b1' } } });
    await expect(verifyWebhook(otherSecret, both, body)).resolves.toBeDefined();
    // A receiver that holds both secrets during the rotation accepts either one.
    await expect(verifyWebhook([otherSecret, secret], current, body)).resolves.toBeDefined();
    // Unknown versions are ignored, not fatal.
    await expect(verifyWebhook(secret, { ...current, 'webhook-signature': `v2,abc ${current['webhook-signature']}` }, body)).resolves.toBeDefined();
  });

  it('refuses a wrong secret, a changed body, id or timestamp', async () => {
    const headers = delivery();
    expect(await reason(verifyWebhook(otherSecret, headers, body))).toBe('invalid_signature');
    expect(await reason(verifyWebhook(secret, headers, body.replace('active', 'cancelled')))).toBe('invalid_signature');
    expect(await reason(verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_other' }, body))).toBe('invalid_signature');
    const later = String(Number(headers['webhook-timestamp']) + 1);
    expect(await reason(verifyWebhook(secret, { ...headers, 'webhook-timestamp': later }, body))).toBe('invalid_signature');
    expect(await reason(verifyWebhook(secret, { ...headers, 'webhook-signature': 'v1,' }, body))).toBe('invalid_signature');
    expect(await reason(verifyWebhook(secret, { ...headers, 'webhook-signature': 'v1,!!!not-base64' }, body))).toBe('invalid_signature');
  });

  it('refuses timestamps more than 300 s away from now, either way', async () => {
    const now = Date.now();
    const clock = { now: () => now };
    expect(await reason(verifyWebhook(secret, delivery({ at: new Date(now - 299_000) }), body, { clock }))).toBeUndefined();
    expect(await reason(verifyWebhook(secret, delivery({ at: new Date(now - 301_000) }), body, { clock }))).toBe('timestamp_out_of_tolerance');
    expect(await reason(verifyWebhook(secret, delivery({ at: new Date(now + 301_000) }), body, { clock }))).toBe('timestamp_out_of_tolerance');
    expect(await reason(verifyWebhook(secret, delivery({ at: new Date(now - 3_600_000) }), body, { clock, toleranceSeconds: 7200 }))).toBeUndefined();
    // The reference refuses the same stale delivery.
    expect(() => new Webhook(secret).verify(body, delivery({ at: new Date(now - 301_000) }))).toThrow();
  });

  it('refuses missing headers, a malformed timestamp and a malformed secret', async () => {
    const headers = delivery();
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(await reason(verifyWebhook(secret, unsigned, body))).toBe('missing_headers');
    expect(await reason(verifyWebhook(secret, { ...headers, 'webhook-timestamp': '12e9' }, body))).toBe('invalid_timestamp');
    expect(await reason(verifyWebhook('whsec_***', headers, body))).toBe('invalid_secret');
    expect(await reason(verifyWebhook(secret, delivery({ body: 'not json' }), 'not json'))).toBe('invalid_payload');
  });
});
