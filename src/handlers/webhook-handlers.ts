import type { ActionInput } from '../actions/action.js';
import { notFound, validationError } from '../http/errors.js';
import { pathId } from '../http/path-id.js';
import { eventNames } from '../webhooks/event-catalogue.js';
import type { Handlers } from './handler.js';
import { pageAnswer } from './page-answer.js';

const idOf = (input: ActionInput) => pathId(input.params.id ?? '', 'webhooks');

/** The delivery named in the path; an implausible id (too long, control characters) is simply not found. */
function deliveryIdOf(input: ActionInput): string {
  const deliveryId = pathId(input.params.delivery_id ?? '', 'webhook-deliveries');
  if (deliveryId.length > 200) throw notFound('webhook-deliveries');
  return deliveryId;
}

function pageParameter(raw: unknown, field: string, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,7}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw validationError([{ field, message: `must be a whole number from 1 to ${max}` }]);
  return Number(raw);
}

/** Webhook operations beyond CRUD (`src/actions/webhook-actions.ts`; docs/webhooks.md "Outgoing" and "Incoming"). */
export const webhookHandlers: Handlers = {
  'webhooks.receive': async (input, services) => {
    return { status: 200, body: await services.incoming.receive(idOf(input), input.rawBody, input.headers ?? {}, input.ip ?? '') };
  },
  'webhooks.received': async (input, services) => {
    const page = await services.incoming.received(input.context, idOf(input), pageParameter(input.query.page, 'page', 1, 1_000_000), pageParameter(input.query.per_page, 'per_page', 25, 100));
    return pageAnswer(page, services.origin, input.url);
  },
  'webhooks.events': async () => ({ status: 200, body: { items: eventNames, total: eventNames.length } }),
  'webhooks.rotate-secret': async (input, services) => ({ status: 200, body: await services.webhooks.rotateSecret(input.context, idOf(input)) }),
  'webhooks.deliveries': async (input, services) => {
    const page = await services.webhooks.deliveries(input.context, idOf(input), input.query);
    return pageAnswer(page, services.origin, input.url);
  },
  'webhooks.attempts': async (input, services) => {
    const page = await services.webhooks.attempts(input.context, idOf(input), deliveryIdOf(input), input.query);
    return pageAnswer(page, services.origin, input.url);
  },
  'webhooks.retry': async (input, services) => {
    const deliveryId = deliveryIdOf(input);
    await services.webhooks.retry(input.context, idOf(input), deliveryId);
    return { status: 202, body: { delivery_id: deliveryId, status: 'pending' } };
  },
  'webhooks.test': async (input, services) => ({ status: 202, body: { delivery_id: await services.webhooks.test(input.context, idOf(input)) } }),
};
