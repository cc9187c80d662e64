import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import type { Database } from '../db/dialect.js';
import type { ActionServices } from '../handlers/index.js';
import { systemClock } from '../core/clock.js';
import type { Clock } from '../core/clock.js';
import { IdempotencyKeys } from '../http/idempotency.js';
import { Metrics } from '../observability/metrics.js';
import { AccessTokenVerifier } from '../security/access-token.js';
import { ClientDirectory } from '../security/client-directory.js';
import { DataKey } from '../security/data-key.js';
import { DatabaseReplayStore } from '../security/db-replay-store.js';
import { DpopVerifier } from '../security/dpop.js';
import { DpopNonces } from '../security/dpop-nonces.js';
import type { ReplayStore } from '../security/replay-store.js';
import { SecurityEvents } from '../security/security-events.js';
import type { SigningKeyStore } from '../security/signing-keys.js';
import { TenantDirectory } from '../security/tenant-directory.js';
import { UserDirectory } from '../security/user-directory.js';
import { ApiClientAdmin } from '../services/api-client-admin.js';
import { CountCache } from '../services/count-cache.js';
import { apiClientHooks } from '../services/hooks/api-clients.js';
import { ResourceService } from '../services/resource-service.js';
import { TokenService } from '../services/token-service.js';
import { MessageSender } from '../sign-in/messages.js';
import { OAuthLogin } from '../sign-in/oauth-login.js';
import { OAuthProviders } from '../sign-in/oauth-providers.js';
import { OtpService } from '../sign-in/otp-service.js';
import { TotpService } from '../sign-in/totp-service.js';
import { UserTokens } from '../sign-in/user-tokens.js';
import { AddressGuard } from '../lib/address-guard.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { webhookQueue } from '../webhooks/webhook-queue.js';
import { IncomingWebhooks } from '../webhooks/incoming.js';
import { WebhookAdmin } from '../webhooks/webhook-admin.js';
import { webhookHooks } from '../webhooks/webhook-hooks.js';
import { orderHooks } from '../selling/order-hooks.js';
import { calendarImportHooks } from '../calendars/calendar-import-hooks.js';
import { CalendarService } from '../calendars/calendar-service.js';
import { CalendarSync } from '../calendars/import-sync.js';
import { resourceHooks } from './resource-hooks.js';

/** What the container is built from: the storage, the signing keys and where services log. */
export interface ContainerDeps {
  readonly database: Database;
  readonly keys: SigningKeyStore;
  /** The app's logger; the CLI logs to stderr. */
  readonly log: FastifyBaseLogger;
  readonly clock?: Clock;
  readonly replay?: ReplayStore;
}

/**
 * Every service of the process, each built once: what the actions run on
 * ({@link ActionServices}) and what the HTTP pipeline and the token endpoint need beside it.
 */
export interface Container extends ActionServices {
  readonly clock: Clock;
  readonly metrics: Metrics;
  readonly tenants: TenantDirectory;
  readonly clients: ClientDirectory;
  readonly users: UserDirectory;
  readonly replay: ReplayStore;
  readonly verifier: AccessTokenVerifier;
  /** Checks DPoP proofs for the token endpoint and the API alike. */
  readonly dpop: DpopVerifier;
  /** Security events waiting to be written to the audit trail. */
  readonly events: SecurityEvents;
  readonly messages: MessageSender;
  readonly tokens: TokenService;
  /** Sends webhook deliveries from the outbox (started by main.ts; tests call runOnce). */
  readonly dispatcher: WebhookDispatcher;
  /** Stops following the change feed and writes the security events still queued. */
  close(): Promise<void>;
}

/**
 * The composition root (Ory Kratos' registry): builds every service once, for the HTTP app,
 * the CLI and the benchmark alike, so each runs the same hooks and the same unit of work.
 * Caches learn of changes from the database's change feed (`Database.changes`), whoever
 * made them. Builds objects only: no I/O beyond opening the data key.
 */
export function buildContainer(config: Config, deps: ContainerDeps): Container {
  const { database, keys, log } = deps;
  const clock = deps.clock ?? systemClock;
  const metrics = new Metrics({
    tokenSigner: keys.signer.name,
    poolStats: database.poolStats?.bind(database),
    webhookQueue: () => webhookQueue(database, clock.now()),
  });
  const tenants = new TenantDirectory(database, 5_000, () => clock.now());
  const clients = new ClientDirectory(database, 5_000, () => clock.now());
  const users = new UserDirectory(database, 5_000, () => clock.now());
  // Committed changes of this process and (PostgreSQL) of every other one.
  const forget = { client: clients, tenant: tenants, user: users } as const;
  const unsubscribe = database.changes.subscribe((change) => forget[change.kind].forget(change.id));
  // A listener that was down may have missed announcements: nothing cached is trusted.
  const unsubscribeLost = database.changes.onLost(() => {
    for (const directory of Object.values(forget)) directory.clear();
  });
  const replay = deps.replay ?? new DatabaseReplayStore(database);
  const verifier = new AccessTokenVerifier(keys, {
    issuer: config.apiBase,
    audience: config.apiBase,
    observer: { signatureChecked: (valid) => metrics.accessTokenSignatureChecked(valid), refusalCached: () => metrics.accessTokenRefusalCached() },
  });
  const nonces = config.dpopNonces ? new DpopNonces({ secret: config.dpopNonceSecret ?? randomUUID() + randomUUID() }) : undefined;
  const dpop = new DpopVerifier({ replay, origin: config.publicUrl, tokenEndpoint: config.tokenEndpoint, clockSkewSeconds: config.clockSkewSeconds, ...(nonces ? { nonces } : {}) });
  const dataKey = DataKey.open({ dataKey: config.dataKey, dataDir: config.dataDir });
  const guard = new AddressGuard(config.webhookAllowedNetworks);
  const hooks = resourceHooks({
    'api-clients': apiClientHooks({ overlapDays: config.keyOverlapDays }),
    webhooks: webhookHooks({ allowHttp: config.webhookAllowHttp, guard, dataKey }),
    orders: orderHooks({ holdSeconds: config.orderHoldSeconds }),
    'calendar-imports': calendarImportHooks({ guard, allowHttp: config.webhookAllowHttp }),
  });
  const calendarSync = new CalendarSync(database, clock, { guard, allowHttp: config.webhookAllowHttp, intervalSeconds: config.calendarSyncSeconds }, metrics);
  const events = new SecurityEvents(database, clock, log);
  const messages = new MessageSender(config);
  const userTokens = new UserTokens({ keys, verifier, tenants, issuer: config.apiBase, lifetimeSeconds: config.accessTokenTtlSeconds, clock });
  const dispatcher = new WebhookDispatcher({
    database,
    clock,
    dataKey,
    guard,
    timeoutMs: config.webhookTimeoutMs,
    retrySchedule: config.webhookRetrySchedule,
    log,
    onAttempt: (outcome) => metrics.webhookAttempt(outcome),
  });
  return {
    clock,
    metrics,
    tenants,
    clients,
    users,
    replay,
    verifier,
    dpop,
    events,
    messages,
    dispatcher,
    origin: config.publicUrl,
    resources: new ResourceService(database, clock, hooks, new CountCache(config.listCountCacheMs, () => clock.now())),
    apiClients: new ApiClientAdmin(database, clock, config.keyOverlapDays),
    webhooks: new WebhookAdmin(database, clock, dataKey, dispatcher),
    incoming: new IncomingWebhooks(database, clock, dataKey, tenants),
    calendars: new CalendarService(database, clock, dataKey, config.publicUrl, calendarSync),
    signIn: {
      otp: new OtpService({
        database,
        clock,
        dataKey,
        users,
        tenants,
        sender: messages,
        tokens: userTokens,
        limits: { email: config.otpDailyEmailLimit, sms: config.otpDailySmsLimit },
        log,
        metrics,
        events,
      }),
      totp: new TotpService({ database, clock, dataKey, users, tokens: userTokens, events }),
      oauth: new OAuthLogin({
        database,
        clock,
        dataKey,
        providers: new OAuthProviders(config.oauthProviders),
        tenants,
        users,
        tokens: userTokens,
        events,
        redirectUris: config.oauthRedirectUris,
        publicUrl: config.publicUrl,
      }),
    },
    tokens: new TokenService({
      events,
      database,
      clients,
      keys,
      verifier,
      replay,
      issuer: config.apiBase,
      tokenEndpoint: config.tokenEndpoint,
      lifetimeSeconds: config.accessTokenTtlSeconds,
      clockSkewSeconds: config.clockSkewSeconds,
      clock,
      dpop,
    }),
    idempotency: new IdempotencyKeys(database, clock, dataKey),
    async close() {
      unsubscribe();
      unsubscribeLost();
      await events.flush();
    },
  };
}
