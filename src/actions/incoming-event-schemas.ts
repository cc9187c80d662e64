import type { Schema } from '../derive/openapi/types.js';

/**
 * What the service reads of an incoming event, per scheme, as JSON Schemas: the incoming
 * webhook handler (`webhooks/incoming.ts`) checks them with the actions' Ajv (`checkValue`)
 * once the signature over the raw body has verified, so an unsigned request is refused for
 * its signature, never for its content. Members the service does not read stay open: a
 * sender's payload is its own. The order an event names is not
 * constrained here: an event without a usable `order_id` is accepted and recorded as
 * `failed` (docs/webhooks.md "Answers"). The receive operation's OpenAPI request body
 * prints these same objects.
 */
export const incomingEventSchemas = {
  /** Standard Webhooks: the event id travels in the `webhook-id` header. */
  'standard-webhooks': {
    type: 'object',
    description:
      'A Standard Webhooks event; `type` `orders.paid` with `data.order_id` pays that order when `data.amount` (major units) and `data.currency` equal its total (docs/selling.md "Payment").',
    properties: {
      type: { type: 'string', maxLength: 200 },
    },
  },
  /** Stripe: the event id is the body's `id`. */
  stripe: {
    type: 'object',
    description:
      'A Stripe event; `payment_intent.succeeded` (`amount_received`) or a paid `checkout.session.completed` / `checkout.session.async_payment_succeeded` (`amount_total`), in minor units with `currency`, and `data.object.metadata.order_id`, pays that order when the money equals its total (docs/selling.md "Payment").',
    required: ['id'],
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 200 },
      type: { type: 'string', maxLength: 200 },
    },
  },
} as const satisfies Readonly<Record<string, Schema>>;

export type IncomingScheme = keyof typeof incomingEventSchemas;
