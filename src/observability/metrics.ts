import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolStats } from '../db/dialect.js';
import { RequestStats, requestMetricsRegistry } from './request-stats.js';

/** The two request metrics, filled from the request stats when scraped. */
const requestMetricNames = {
  counter: { name: 'http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.' },
  histogram: { name: 'http_request_duration_seconds', help: 'Time from receiving a request to finishing its response, by method, route pattern and status.' },
} as const;

/** Route label of a request no route matched (404, 405): one value, whatever the URL. */
export const unmatchedRoute = 'unmatched';

export interface MetricsOptions {
  /** Connection-pool numbers of the database, when it has a pool (PostgreSQL). */
  readonly poolStats?: () => PoolStats;
  /** Pending webhook deliveries and the age of the oldest (ms), read at scrape time. */
  readonly webhookQueue?: () => Promise<{ readonly depth: number; readonly oldestAgeMs: number }>;
  /** What signs access tokens (`libcrypto` or `node`), exposed as `access_token_signer_info`. */
  readonly tokenSigner?: string;
}

/**
 * The service's Prometheus metrics, in a registry of its own (never prom-client's global
 * one), so several apps in one process — tests, the CLI — each count only their traffic.
 * Callers record through the methods; `/metrics` renders {@link Metrics.render}.
 */
export class Metrics {
  readonly #registry = new Registry();
  readonly #requestStats = new RequestStats([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  readonly #tokensIssued: Counter;
  readonly #tokensRefused: Counter<'reason'>;
  readonly #rateLimitRefusals: Counter<'group'>;
  readonly #signatureChecks: Counter<'result'>;
  readonly #cachedRefusals: Counter;
  readonly #otpMessages: Counter<'channel' | 'outcome'>;
  readonly #otpDailyUsed: Gauge<'channel'>;
  readonly #webhookDeliveries: Counter<'outcome'>;
  readonly #calendarSyncs: Counter<'outcome'>;
  readonly #calendarConflicts: Counter;
  readonly #retentionRuns: Counter<'outcome'>;
  readonly #retentionRows: Counter<'kind'>;
  readonly #retentionLastFinished: Gauge;
  #processMetrics = false;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.#registry];
    this.#tokensIssued = new Counter({ name: 'tokens_issued_total', help: 'Access tokens issued by the token endpoint.', registers });
    this.#tokensRefused = new Counter({ name: 'tokens_refused_total', help: 'Token requests refused, by OAuth error code.', labelNames: ['reason'], registers });
    this.#rateLimitRefusals = new Counter({ name: 'rate_limit_refusals_total', help: 'Requests refused by a rate limit, by endpoint group.', labelNames: ['group'], registers });
    this.#signatureChecks = new Counter({
      name: 'access_token_signature_checks_total',
      help: 'Access-token signature verifications performed (tokens not served from the verified cache), by result.',
      labelNames: ['result'],
      registers,
    });
    this.#cachedRefusals = new Counter({ name: 'access_token_cached_refusals_total', help: 'Access tokens refused again from the refused-token cache, without a signature verification.', registers });
    this.#otpMessages = new Counter({
      name: 'otp_messages_total',
      help: 'Sign-in one-time passwords, by channel and outcome (sent, failed, refused_daily_limit, no_user).',
      labelNames: ['channel', 'outcome'],
      registers,
    });
    this.#otpDailyUsed = new Gauge({
      name: 'otp_daily_cap_used',
      help: 'Share (0-1) of the deployment-wide daily one-time-password cap used today, by channel, as last seen by this instance.',
      labelNames: ['channel'],
      registers,
    });
    this.#webhookDeliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome (succeeded, retrying, failed, disabled).',
      labelNames: ['outcome'],
      registers,
    });
    this.#calendarSyncs = new Counter({
      name: 'calendar_syncs_total',
      help: 'Calendar import syncs on this instance, by outcome (applied, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.#calendarConflicts = new Counter({ name: 'calendar_conflicts_total', help: "Calendar events refused because they did not fit the product's free units (new conflicts only).", registers });
    this.#retentionRuns = new Counter({
      name: 'retention_runs_total',
      help: 'Scheduled retention job attempts on this instance, by outcome (finished, skipped: another instance held the interval, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.#retentionRows = new Counter({
      name: 'retention_rows_total',
      help: 'Rows the retention job removed (cleared, for tenant contacts and anonymising policies), by kind.',
      labelNames: ['kind'],
      registers,
    });
    this.#retentionLastFinished = new Gauge({
      name: 'retention_last_finished_timestamp_seconds',
      help: 'When this instance last finished a retention run (Unix seconds); 0 until it has. Alert when no instance has finished one for several intervals.',
      registers,
    });
    if (options.tokenSigner !== undefined) {
      // An info metric: a fallback to the slower signer is visible on every dashboard.
      new Gauge({ name: 'access_token_signer_info', help: 'What signs access tokens: libcrypto (the system OpenSSL) or node (node:crypto, the fallback).', labelNames: ['signer'], registers }).set(
        { signer: options.tokenSigner },
        1,
      );
    }
    // Pool numbers first: they are read synchronously, before the queue gauges' query takes a connection.
    if (options.poolStats) this.#poolGauges(options.poolStats);
    if (options.webhookQueue) this.#webhookGauges(options.webhookQueue);
  }

  /** An access token's signature was verified (`valid`: it and the claims passed). */
  accessTokenSignatureChecked(valid: boolean): void {
    this.#signatureChecks.inc({ result: valid ? 'valid' : 'invalid' });
  }

  /** A sign-in one-time password, by channel and what became of it. */
  otpMessage(channel: string, outcome: 'sent' | 'failed' | 'refused_daily_limit' | 'no_user'): void {
    this.#otpMessages.inc({ channel, outcome });
  }

  /** The share of today's deployment-wide cap a channel has used. */
  otpDailyCapUsed(channel: string, share: number): void {
    this.#otpDailyUsed.set({ channel }, share);
  }

  /** A webhook delivery attempt, by outcome. */
  webhookAttempt(outcome: string): void {
    this.#webhookDeliveries.inc({ outcome });
  }

  /** A calendar import sync ended (docs/calendars.md "Health"), with how many new conflicts it found. */
  calendarSync(outcome: 'applied' | 'failed', newConflicts = 0): void {
    this.#calendarSyncs.inc({ outcome });
    if (newConflicts > 0) this.#calendarConflicts.inc(newConflicts);
  }

  /** A scheduled retention attempt ended; a finished one brings its row counts by kind, at `at` (epoch ms). */
  retentionAttempt(outcome: 'finished' | 'skipped' | 'failed', rows: Readonly<Record<string, number>> = {}, at = Date.now()): void {
    this.#retentionRuns.inc({ outcome });
    for (const [kind, count] of Object.entries(rows)) this.#retentionRows.inc({ kind }, count);
    if (outcome === 'finished') this.#retentionLastFinished.set(at / 1000);
  }

  /** An access token was refused from the refused-token cache, with no verification. */
  accessTokenRefusalCached(): void {
    this.#cachedRefusals.inc();
  }

  /** Records one finished request; `route` is the route pattern or {@link unmatchedRoute}. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.#requestStats.observe(method, route, status, seconds);
  }

  /** The token endpoint issued an access token. */
  tokenIssued(): void {
    this.#tokensIssued.inc();
  }

  /** The token endpoint refused a request; `reason` is the public OAuth `error` code. */
  tokenRefused(reason: string): void {
    this.#tokensRefused.inc({ reason });
  }

  /** A rate limit refused a request of `group` (called by the rate limiter). */
  rateLimitRefused(group: string): void {
    this.#rateLimitRefusals.inc({ group });
  }

  /** Media type of {@link Metrics.render}'s output. */
  get contentType(): string {
    return this.#registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  async render(): Promise<string> {
    this.startProcessMetrics();
    return Registry.merge([requestMetricsRegistry(this.#requestStats, requestMetricNames), this.#registry]).metrics();
  }

  /**
   * Starts the process metrics (event-loop lag, memory, CPU, GC); idempotent. Called when
   * the server listens, or at the first scrape: their collectors install event-loop and GC
   * observers that cannot be removed again, so an app that never serves (tests that only
   * inject, the CLI) does not carry them.
   */
  startProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.#registry });
  }

  #webhookGauges(queue: NonNullable<MetricsOptions['webhookQueue']>): void {
    const registers = [this.#registry];
    let last: Promise<{ depth: number; oldestAgeMs: number }> | undefined;
    // One query per scrape for both gauges.
    const read = () => (last ??= queue().finally(() => setTimeout(() => (last = undefined), 100)));
    new Gauge({
      name: 'webhook_queue_depth',
      help: 'Webhook deliveries waiting to be sent.',
      registers,
      async collect() {
        this.set((await read()).depth);
      },
    });
    new Gauge({
      name: 'webhook_oldest_pending_age_seconds',
      help: 'Age of the oldest pending webhook delivery.',
      registers,
      async collect() {
        this.set((await read()).oldestAgeMs / 1000);
      },
    });
  }

  #poolGauges(poolStats: () => PoolStats): void {
    const registers = [this.#registry];
    // Read at scrape time; the numbers are plain property reads on the pool.
    const gauge = (name: string, help: string, key: keyof PoolStats) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(poolStats()[key]);
        },
      });
    gauge('db_pool_connections', 'Connections open in the database pool.', 'total');
    gauge('db_pool_idle_connections', 'Pool connections open but not in use.', 'idle');
    gauge('db_pool_waiting_requests', 'Queries queued for a free pool connection.', 'waiting');
  }
}
