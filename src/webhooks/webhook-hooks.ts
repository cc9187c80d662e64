import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { validationError } from '../http/errors.js';
import type { FieldError } from '../http/errors.js';
import type { DataKey } from '../security/data-key.js';
import type { ResourceHooks } from '../services/resource-hooks.js';
import type { AddressGuard } from './address-guard.js';
import { isEventName } from './event-catalogue.js';
import { newWebhookSecret } from './signature.js';

export interface WebhookPolicy {
  readonly allowHttp: boolean;
  readonly guard: AddressGuard;
  readonly dataKey: DataKey;
}

/** https (or http when allowed), and a host whose every address webhooks may reach. */
export async function checkWebhookUrl(text: string, policy: WebhookPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) return policy.allowHttp ? 'must be an https:// or http:// URL' : 'must be an https:// URL';
  if (url.username || url.password) return 'must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((entry) => entry.address);
    } catch {
      // Not resolvable now (DNS not set up yet, an outage): every delivery checks again.
      return undefined;
    }
  }
  if (addresses.length === 0 || !addresses.every((address) => policy.guard.permits(address))) return 'points at a loopback, private, link-local or otherwise non-public address (see WEBHOOK_ALLOWED_NETWORKS)';
  return undefined;
}

async function checkBody(values: Readonly<Record<string, unknown>>, policy: WebhookPolicy): Promise<void> {
  const errors: FieldError[] = [];
  if (typeof values.url === 'string') {
    const problem = await checkWebhookUrl(values.url, policy);
    if (problem) errors.push({ field: 'url', message: problem });
  }
  if (Array.isArray(values.events)) {
    for (const name of values.events) if (!isEventName(name)) errors.push({ field: 'events', message: `unknown event ${String(name).slice(0, 60)} (see GET /v1/webhooks/events)` });
  }
  if (errors.length > 0) throw validationError(errors);
}

/**
 * Webhooks: the URL and event names are checked on every write; creating one makes its
 * signing secret, stored encrypted beside the record (never in it) and shown in the
 * create answer only.
 */
export function webhookHooks(policy: WebhookPolicy): ResourceHooks {
  return {
    async beforeCreate(_hook, draft) {
      await checkBody(draft.values, policy);
      return draft;
    },
    async afterCreate(hook, record) {
      const secret = newWebhookSecret();
      await hook.unit.trx.insertInto('webhook_secrets').values({ webhook_id: String(record._id), secret: policy.dataKey.encrypt(secret), previous: null, previous_until: null }).execute();
      return { secret };
    },
    async beforeUpdate(_hook, _merged, changes) {
      await checkBody(changes, policy);
    },
  };
}
