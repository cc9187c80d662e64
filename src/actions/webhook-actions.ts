import { listHeaders } from '../derive/openapi/headers.js';
import { problems } from '../derive/openapi/problems.js';
import { listParameters } from '../derive/openapi/list-parameters.js';
import { queryParameters } from '../derive/openapi/query-parameters.js';
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from '../query/limits.js';
import { ref } from '../derive/openapi/types.js';
import { webhookDeliveries } from '../registry/sub-collections/webhook-deliveries.js';
import { webhookDeliveryAttempts } from '../registry/sub-collections/webhook-delivery-attempts.js';
import type { Operation, Schema } from '../derive/openapi/types.js';
import type { ResourceDef } from '../registry/types.js';
import { queryParsedByHandler } from './action.js';
import type { ActionDef } from './action.js';
import { incomingEventSchemas } from './incoming-event-schemas.js';
import { json, subCollectionList } from './sub-collection.js';

function declare(name: string, method: 'GET' | 'POST', path: string, capability: string, openapi: Omit<Operation, 'tags'>): ActionDef {
  return {
    resource: 'webhooks',
    name,
    method,
    path,
    capability,
    rateLimitGroup: method === 'GET' ? 'reads' : 'writes',
    authentication: 'client',
    stepUp: method === 'POST',
    openapi: { ...openapi, tags: ['webhooks'] },
    schemas: {},
  };
}

const id = ref('parameters', 'id');
const deliveryIdParameter = { name: 'delivery_id', in: 'path', required: true, schema: { type: 'string' } } as const;

/** The query of the received events: paging only. The handler checks that each is a whole number in range. */
const receivedQuery: Schema = { type: 'object', properties: { page: { type: 'string' }, per_page: { type: 'string' } }, additionalProperties: false };
const receivedQueryDescriptions = {
  page: `Page number, 1 to ${MAX_PAGE} (default 1).`,
  per_page: `Page size, 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}).`,
};

/** The answer of a list of a registry sub-collection (deliveries, attempts): one page, its paging headers, the refusals. */
function listResponses(collection: ResourceDef): Operation['responses'] {
  return { 200: { description: 'One page.', headers: listHeaders(), content: json(subCollectionList(collection)) }, ...problems('400', '404') };
}

/** Webhook operations beyond CRUD (docs/webhooks.md "Outgoing" and "Incoming"). */
export const webhookActions: readonly ActionDef[] = [
  {
    resource: 'webhooks',
    name: 'receive',
    method: 'POST',
    path: '/v1/webhooks/:id/receive',
    capability: 'webhooks:receive',
    rateLimitGroup: 'public',
    authentication: 'public',
    stepUp: false,
    schemas: {},
    openapi: {
      operationId: 'receive_webhook',
      summary: 'Receive an event from a sender (Standard Webhooks or Stripe)',
      tags: ['webhooks'],
      parameters: [id],
      description:
        'No token: the signature over the exact body is the authentication (`webhook-*` headers, or `Stripe-Signature`), 300 s tolerance. A duplicate of an accepted event answers 200 and has no second effect.',
      // The event schemas are checked by the handler once the signature verified, not by the executor before it.
      requestBody: { required: true, content: { 'application/json': { schema: { anyOf: [incomingEventSchemas['standard-webhooks'], incomingEventSchemas.stripe] } } } },
      responses: {
        200: {
          description: 'Accepted (or a duplicate of an accepted event).',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { received: { type: 'boolean' }, event_id: { type: 'string' }, outcome: { type: 'string', enum: ['applied', 'ignored', 'failed'] }, duplicate: { type: 'boolean' } },
              },
            },
          },
        },
        ...problems('400', '401', '403', '404', '409', '422'),
      },
    },
  },
  {
    ...declare('received', 'GET', '/v1/webhooks/:id/received', 'webhooks:read', {
      operationId: 'list_received_webhook_events',
      summary: 'Events an incoming webhook accepted, newest first',
      parameters: [id, ...queryParameters(receivedQuery, receivedQueryDescriptions)],
      responses: {
        200: {
          description: 'One page.',
          headers: listHeaders(),
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  items: {
                    type: 'array',
                    items: {
                      type: 'object',
                      properties: {
                        _id: { type: 'string' },
                        type: { type: 'string' },
                        received_at: { type: 'string', format: 'date-time' },
                        outcome: { type: 'string' },
                        detail: { type: ['string', 'null'] },
                      },
                    },
                  },
                  total: { type: 'integer' },
                },
              },
            },
          },
        },
        ...problems('400', '404'),
      },
    }),
    stepUp: false,
    schemas: { query: receivedQuery },
  },
  {
    ...declare('events', 'GET', '/v1/webhooks/events', 'webhooks:list', {
      operationId: 'list_webhook_events',
      summary: 'The event names a webhook can subscribe to',
      responses: {
        200: {
          description: 'Every event name.',
          content: { 'application/json': { schema: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } }, total: { type: 'integer' } } } } },
        },
        ...problems('400'),
      },
    }),
    stepUp: false,
  },
  declare('rotate-secret', 'POST', '/v1/webhooks/:id/rotate-secret', 'webhooks:rotate-secret', {
    operationId: 'rotate_secret_webhooks',
    summary: 'Replace the signing secret',
    description: 'The new secret is in this answer only. For 24 hours deliveries carry signatures with both secrets.',
    parameters: [id],
    responses: {
      200: {
        description: 'The new secret.',
        content: { 'application/json': { schema: { type: 'object', properties: { secret: { type: 'string' }, previous_valid_until: { type: 'string', format: 'date-time' } } } } },
      },
      ...problems('400', '404'),
    },
  }),
  {
    ...declare('deliveries', 'GET', '/v1/webhooks/:id/deliveries', 'webhooks:read', {
      operationId: 'list_webhook_deliveries',
      summary: 'Deliveries of a webhook, newest first',
      description: 'The full list query language (`where`, field filters, `sort`, `fields`, paging) over the delivery fields.',
      parameters: [id, ...listParameters(webhookDeliveries)],
      responses: listResponses(webhookDeliveries),
    }),
    stepUp: false,
    // The list language, parsed (and unknown names refused) by the webhook service.
    schemas: { query: queryParsedByHandler },
  },
  {
    ...declare('attempts', 'GET', '/v1/webhooks/:id/deliveries/:delivery_id/attempts', 'webhooks:read', {
      operationId: 'list_webhook_delivery_attempts',
      summary: 'Attempts of a delivery, oldest first',
      description:
        "One item per attempt (retries included), kept as long as the delivery: when it started and finished, the receiver's status and what went wrong. The full list query language applies; the default sort is `attempt`.",
      parameters: [id, deliveryIdParameter, ...listParameters(webhookDeliveryAttempts)],
      responses: listResponses(webhookDeliveryAttempts),
    }),
    stepUp: false,
    // The list language, as for the deliveries.
    schemas: { query: queryParsedByHandler },
  },
  declare('retry', 'POST', '/v1/webhooks/:id/deliveries/:delivery_id/retry', 'webhooks:retry', {
    operationId: 'retry_webhook_delivery',
    summary: 'Attempt a delivery again now',
    description: "Audited as `retry` on the webhook, in the same transaction as the delivery's change.",
    parameters: [id, deliveryIdParameter],
    responses: {
      202: {
        description: 'A new attempt is queued.',
        content: {
          'application/json': {
            schema: { type: 'object', properties: { delivery_id: { type: 'string' }, status: { type: 'string', const: 'pending' } }, required: ['delivery_id', 'status'] },
          },
        },
      },
      ...problems('400', '404'),
    },
  }),
  declare('test', 'POST', '/v1/webhooks/:id/test', 'webhooks:test', {
    operationId: 'test_webhook',
    summary: 'Send a ping',
    description: "Audited as `test` on the webhook, in the same transaction as the `ping` delivery it creates. An incoming webhook sends nothing (404); an inactive one's ping fails at once.",
    parameters: [id],
    responses: {
      202: { description: 'A `ping` delivery is queued.', content: { 'application/json': { schema: { type: 'object', properties: { delivery_id: { type: 'string' } } } } } },
      ...problems('400', '404'),
    },
  }),
];
