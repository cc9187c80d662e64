import type { ActionInput, ActionResult } from '../actions/action.js';
import type { IdempotencyKeys } from '../http/idempotency.js';
import type { ApiClientAdmin } from '../services/api-client-admin.js';
import type { CalendarService } from '../calendars/calendar-service.js';
import type { ResourceService } from '../services/resource-service.js';
import type { SignInServices } from '../sign-in/sign-in-services.js';
import type { IncomingWebhooks } from '../webhooks/incoming.js';
import type { WebhookAdmin } from '../webhooks/webhook-admin.js';

/** What the services layer offers handlers; built once per process by the container (`src/container/container.ts`), for HTTP and the CLI alike. */
export interface ActionServices {
  readonly resources: ResourceService;
  readonly apiClients: ApiClientAdmin;
  /** Webhook operations beyond CRUD. */
  readonly webhooks: WebhookAdmin;
  /** Incoming webhooks: signature checks and their effects. */
  readonly incoming: IncomingWebhooks;
  /** Calendar feeds out and in (docs/calendars.md). */
  readonly calendars: CalendarService;
  /** End-user sign-in. */
  readonly signIn: SignInServices;
  /** `PUBLIC_URL`, for `Location` and `Link` headers. */
  readonly origin: string;
  /** Stored answers of POSTs sent with an `Idempotency-Key` (erasure rewrites them). */
  readonly idempotency: IdempotencyKeys;
}

/** What a declared action does: one unit of work for writes (see `src/data/unit-of-work.ts`). */
export type Handler = (input: ActionInput, services: ActionServices) => Promise<ActionResult>;

/** Handlers by the key of their action (`actionKey`: `products.create`). */
export type Handlers = Readonly<Record<string, Handler>>;
