import type { Schema } from '../derive/openapi/types.js';

/**
 * What the service reads of an incoming event, per scheme, as JSON Schemas: the incoming
 * webhook handler (`webhooks/incoming.ts`) checks them with the actions' Ajv (`checkValue`)
 * once the signature over the raw body has verified, so an unsigned request is refused for
 * its signature, never for its content. Members the service does not read stay open: a
 * sender's payload is its own. The order an event names is not
 * constrained here: an event without a usable `order_id` is accepted and recorded as
 * `failed` (CONTRACT.md "Incoming webhooks"). The receive operation's OpenAPI request body
 * prints these same objects.
 */
export const incomingEventSchemas = {
  /** Standard Webhooks: the event id travels in the `webhook-id` header. */
  'standard-webhooks': {
    type: 'object',
    description: 'A Standard Webhooks event; `type` `orders.paid` with `data.order_id` confirms that order.',
    properties: {
      type: { type: 'string', maxLength: 200 },
    },
  },
  /** Stripe: the event id is the body's `id`. */
  stripe: {
    type: 'object',
    description: 'A Stripe event; `payment_intent.succeeded` or `checkout.session.completed` with `data.object.metadata.order_id` confirms that order.',
    required: ['id'],
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 200 },
      type: { type: 'string', maxLength: 200 },
    },
  },
} as const satisfies Readonly<Record<string, Schema>>;

export type IncomingScheme = keyof typeof incomingEventSchemas;
