import { systemClock } from './clock.js';
import type { Clock } from './clock.js';
import { BookingClientError } from './errors.js';

/** Why a delivery was refused. */
export type WebhookFailure = 'missing_headers' | 'invalid_secret' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature' | 'invalid_payload';

/** The delivery is not authentic, or not recent: answer it with 400/401 and do not act on it. */
export class WebhookVerificationError extends BookingClientError {
  override readonly name: string = 'WebhookVerificationError';
  readonly reason: WebhookFailure;

  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A verified delivery. */
export interface VerifiedWebhook<P = unknown> {
  /** `webhook-id`: the same across retries of one delivery; use it to ignore duplicates. */
  readonly id: string;
  readonly timestamp: Date;
  /** The parsed JSON body (`{ type, timestamp, data }`). */
  readonly payload: P;
}

/** Request headers: a `Headers` object, or Node's `IncomingHttpHeaders`-like record. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** Largest accepted distance between `webhook-timestamp` and now, in seconds (default 300). */
  readonly toleranceSeconds?: number;
  readonly clock?: Clock;
}

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry.join(' ') : (entry as string | undefined);
}

function base64Decode(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const bytes = base64Decode(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
  if (!bytes || bytes.length === 0) throw new WebhookVerificationError('invalid_secret', 'the webhook secret is not whsec_ followed by base64');
  return bytes;
}

/** Equality in time independent of where the inputs differ (lengths are public: 32 bytes). */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

/**
 * Verifies a Standard Webhooks delivery (https://www.standardwebhooks.com): the
 * `webhook-signature` header holds space-separated `v1,<base64 HMAC-SHA256>` signatures of
 * `"{webhook-id}.{webhook-timestamp}.{body}"` under the `whsec_` secret, any one of which
 * may match (during a secret rotation the sender signs with both secrets). Pass the body
 * exactly as received, before any JSON parsing. Pass several secrets to accept any of them.
 * Throws {@link WebhookVerificationError}; returns the id, time and parsed payload.
 */
export async function verifyWebhook<P = unknown>(
  secret: string | readonly string[],
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhook<P>> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are required');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not a number of seconds');
  const now = Math.floor((options.clock ?? systemClock).now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('timestamp_out_of_tolerance', 'webhook-timestamp is too far from now');

  const bodyBytes = typeof body === 'string' ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix);
  signed.set(bodyBytes, prefix.length);

  const offered = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => base64Decode(s.slice(3)))
    .filter((s): s is Uint8Array<ArrayBuffer> => s !== undefined);
  for (const candidate of typeof secret === 'string' ? [secret] : secret) {
    const key = await crypto.subtle.importKey('raw', secretBytes(candidate), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed));
    // Compare against every offered signature, not stopping early, so timing says nothing.
    let match = false;
    for (const signature of offered) match = constantTimeEqual(expected, signature) || match;
    if (match) {
      let payload: P;
      try {
        payload = JSON.parse(new TextDecoder().decode(bodyBytes)) as P;
      } catch {
        throw new WebhookVerificationError('invalid_payload', 'the signature matches but the body is not JSON');
      }
      return { id, timestamp: new Date(Number(timestamp) * 1000), payload };
    }
  }
  throw new WebhookVerificationError('invalid_signature', 'no signature matches');
}
