/**
 * Every environment variable the service reads: name, default, meaning and parser.
 * docs/configuration.md is generated from this list (`npm run docs`), and a test checks it is current.
 */
import { allowHttpIssuers, oauthProviders, oauthRedirectUris } from './oauth-parsers.js';
import { cidrList, optionalSecret, optionalTimestamp, optionalUri, uriList } from './security-parsers.js';
import { listenHost, mailbox, optionalServiceUrl, originList } from './service-parsers.js';

export interface Setting<T> {
  readonly env: string;
  readonly description: string;
  /** Shown in docs; `undefined` means "unset". */
  readonly defaultText: string | undefined;
  parse(raw: string | undefined, env: NodeJS.ProcessEnv): T;
  /** The value is a path the service reads: `loadConfig` checks it is readable, before anything opens. */
  readonly readsFile?: true;
}

function setting<T>(env: string, defaultText: string | undefined, description: string, parse: (raw: string | undefined, env: NodeJS.ProcessEnv) => T): Setting<T> {
  return { env, defaultText, description, parse };
}

/** An optional path to a file the service reads (`loadConfig` checks that it can). */
function fileSetting<T>(env: string, description: string, parse: (raw: string | undefined, env: NodeJS.ProcessEnv) => T): Setting<T> {
  return { env, defaultText: undefined, description, parse, readsFile: true };
}

function integer(name: string, fallback: number, min: number, max: number) {
  return (raw: string | undefined): number => {
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`${name} must be between ${min} and ${max}, got ${value}`);
    return value;
  };
}

function optionalInteger(name: string, min: number, max: number) {
  return (raw: string | undefined): number | undefined => (raw === undefined || raw === '' ? undefined : integer(name, 0, min, max)(raw));
}

function optionalText(raw: string | undefined): string | undefined {
  return raw === undefined || raw === '' ? undefined : raw;
}

function boolean(name: string, fallback: boolean) {
  return (raw: string | undefined): boolean => {
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new Error(`${name} must be true or false, got "${raw}"`);
  };
}

export const settings = {
  port: setting('PORT', '3000', 'TCP port to listen on.', integer('PORT', 3000, 0, 65535)),
  host: setting('HOST', '0.0.0.0', 'Interface to bind: an IP address or a host name.', listenHost('HOST', '0.0.0.0')),
  publicUrl: setting(
    'PUBLIC_URL',
    'http://localhost:$PORT',
    'Origin clients reach the service at; the issuer is `{PUBLIC_URL}/v1` and assertions must use `{PUBLIC_URL}/v1/auth/token` as `aud`.',
    optionalText,
  ),
  dataDir: setting('DATA_DIR', './data', 'Directory for the embedded SQLite database and generated signing keys.', (raw) => optionalText(raw) ?? './data'),
  databaseUrl: setting('DATABASE_URL', undefined, '`postgres://…` switches storage to PostgreSQL; unset uses SQLite in `DATA_DIR`.', optionalText),
  databaseDirectUrl: setting(
    'DATABASE_DIRECT_URL',
    '$DATABASE_URL',
    'A `postgres://…` URL straight to the server, for LISTEN (cache invalidation between instances) and migrations. Set it when `DATABASE_URL` goes through PgBouncer in transaction mode: the pool then keeps no session state (docs/operations.md, "Through PgBouncer").',
    (raw, env) => optionalText(raw) ?? optionalText(env.DATABASE_URL),
  ),
  dbPoolSize: setting('DB_POOL_SIZE', '10', 'PostgreSQL connection pool size.', integer('DB_POOL_SIZE', 10, 1, 1000)),
  dbStatementTimeoutMs: setting('DB_STATEMENT_TIMEOUT_MS', '5000', 'PostgreSQL statement timeout (bounds `$regex` and any runaway query).', integer('DB_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000)),
  logLevel: setting('LOG_LEVEL', 'info', 'pino log level (`fatal` … `trace`, or `silent`).', (raw) => {
    const value = optionalText(raw) ?? 'info';
    if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(value)) throw new Error(`LOG_LEVEL "${value}" is not a pino level`);
    return value;
  }),
  listCountCacheMs: setting(
    'LIST_COUNT_CACHE_MS',
    '1000',
    'How long a list total may be reused while no write to the resource committed on this instance; 0 counts on every request.',
    integer('LIST_COUNT_CACHE_MS', 1000, 0, 60_000),
  ),
  bodyLimitBytes: setting('BODY_LIMIT_BYTES', '102400', 'Largest accepted request body (413 above).', integer('BODY_LIMIT_BYTES', 102_400, 1024, 10_485_760)),
  accessTokenTtlSeconds: setting('ACCESS_TOKEN_TTL_SECONDS', '900', 'Access token lifetime (`expires_in`).', integer('ACCESS_TOKEN_TTL_SECONDS', 900, 60, 86_400)),
  clockSkewSeconds: setting('CLOCK_SKEW_SECONDS', '60', 'Tolerated clock difference for assertion and proof times.', integer('CLOCK_SKEW_SECONDS', 60, 0, 300)),
  keyOverlapDays: setting('KEY_OVERLAP_DAYS', '30', 'Default days a client key stays valid after a new key is added.', integer('KEY_OVERLAP_DAYS', 30, 0, 365)),
  signingKeysFile: fileSetting('SIGNING_KEYS_FILE', 'Private JWKS (ES512) to sign access tokens with; unset generates and stores one in `DATA_DIR`.', optionalText),
  signingKeyPublishDelaySeconds: setting(
    'SIGNING_KEY_PUBLISH_DELAY_SECONDS',
    '360',
    'How long a rotated signing key is only published (JWKS) before it signs; covers JWKS caches (300 s) and the key-file reload (60 s).',
    integer('SIGNING_KEY_PUBLISH_DELAY_SECONDS', 360, 0, 86_400),
  ),
  es512Signer: setting(
    'ES512_SIGNER',
    'auto',
    'What signs access tokens: `auto` (the system OpenSSL `libcrypto.so.3` when usable, about 7× faster at P-521, else node:crypto), `libcrypto` (required: refuse to start without it) or `node`.',
    (raw) => {
      const value = optionalText(raw) ?? 'auto';
      if (value !== 'auto' && value !== 'libcrypto' && value !== 'node') throw new Error(`ES512_SIGNER must be auto, libcrypto or node, got "${value}"`);
      return value;
    },
  ),
  trustProxy: setting('TRUST_PROXY', undefined, 'Comma-separated CIDRs (or addresses) of proxies whose `X-Forwarded-For` is believed; unset believes none.', cidrList('TRUST_PROXY', [])),
  dpopNonces: setting('DPOP_NONCE', 'false', 'Require server-issued DPoP nonces (`DPoP-Nonce`, `use_dpop_nonce`).', boolean('DPOP_NONCE', false)),
  dpopNonceSecret: setting(
    'DPOP_NONCE_SECRET',
    undefined,
    'Secret (≥ 32 characters) that signs DPoP nonces; set the same value on every instance, or each accepts only its own nonces. Unset: random per process.',
    (raw) => {
      const value = optionalText(raw);
      if (value !== undefined && value.length < 32) throw new Error('DPOP_NONCE_SECRET must be at least 32 characters');
      return value;
    },
  ),
  redisUrl: setting(
    'REDIS_URL',
    undefined,
    'Redis (`redis://…` or `rediss://…`) for rate-limit counters shared by every instance (replay protection, jti and DPoP proofs, lives in the database).',
    optionalServiceUrl('REDIS_URL', ['redis:', 'rediss:']),
  ),
  auditRetentionDays: setting('AUDIT_RETENTION_DAYS', '90', 'Days audit entries are kept (every category without its own setting).', integer('AUDIT_RETENTION_DAYS', 90, 1, 36_500)),
  auditRetentionDataDays: setting(
    'AUDIT_RETENTION_DATA_DAYS',
    undefined,
    'Days `data` (change) entries are kept; default `AUDIT_RETENTION_DAYS`.',
    optionalInteger('AUDIT_RETENTION_DATA_DAYS', 1, 36_500),
  ),
  auditRetentionSecurityDays: setting(
    'AUDIT_RETENTION_SECURITY_DAYS',
    undefined,
    'Days `security` entries are kept; default `AUDIT_RETENTION_DAYS`.',
    optionalInteger('AUDIT_RETENTION_SECURITY_DAYS', 1, 36_500),
  ),
  webhookReceivedRetentionDays: setting(
    'WEBHOOK_RECEIVED_RETENTION_DAYS',
    '7',
    'Days the retention job keeps received incoming-webhook events (`GET /v1/webhooks/{id}/received`; duplicates within the window are recognised). At least 7.',
    integer('WEBHOOK_RECEIVED_RETENTION_DAYS', 7, 7, 3650),
  ),
  webhookDeliveryRetentionDays: setting(
    'WEBHOOK_DELIVERY_RETENTION_DAYS',
    '30',
    'Days the retention job keeps finished outgoing webhook deliveries (counted from their last attempt), their attempts and dispatched outbox events; pending deliveries stay until they finish.',
    integer('WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 3650),
  ),
  tenantContactRetentionDays: setting(
    'TENANT_CONTACT_RETENTION_DAYS',
    '30',
    'Days after a tenant node is deleted before the retention job clears its `contact_email` and shreds the audit values sealed for it; 0 clears it on the next run.',
    integer('TENANT_CONTACT_RETENTION_DAYS', 30, 0, 36_500),
  ),
  orderHoldSeconds: setting(
    'ORDER_HOLD_SECONDS',
    '900',
    'How long a new order holds its units unpaid when its body names no `hold_seconds` (docs/selling.md).',
    integer('ORDER_HOLD_SECONDS', 900, 60, 86_400),
  ),
  orderExpirySweepSeconds: setting(
    'ORDER_EXPIRY_SWEEP_SECONDS',
    '15',
    'How often one instance marks orders past their hold `expired` and forgets expired quotes; 0 disables the sweep (holds still stop counting at `expires_at`).',
    integer('ORDER_EXPIRY_SWEEP_SECONDS', 15, 0, 60),
  ),
  calendarSyncSeconds: setting(
    'CALENDAR_SYNC_SECONDS',
    '900',
    'How often one instance fetches every calendar import (docs/calendars.md); an import with no successful sync for 3 intervals is `stale`. 0 disables the schedule (`POST …/sync` still works).',
    integer('CALENDAR_SYNC_SECONDS', 900, 0, 86_400),
  ),
  auditPurgeIntervalMinutes: setting(
    'AUDIT_PURGE_INTERVAL_MINUTES',
    '60',
    'How often the retention job runs; 0 disables it (use `cli audit purge`).',
    integer('AUDIT_PURGE_INTERVAL_MINUTES', 60, 0, 10_080),
  ),
  tlsCertFile: fileSetting('TLS_CERT_FILE', 'PEM certificate chain; with `TLS_KEY_FILE` the service serves HTTPS itself (TLS 1.2 minimum).', (raw, env) => {
    const value = optionalText(raw);
    if (value !== undefined && !optionalText(env.TLS_KEY_FILE)) throw new Error('TLS_CERT_FILE is set without TLS_KEY_FILE: set both, or neither');
    return value;
  }),
  tlsKeyFile: fileSetting('TLS_KEY_FILE', 'PEM private key for `TLS_CERT_FILE`.', (raw, env) => {
    const value = optionalText(raw);
    if (value !== undefined && !optionalText(env.TLS_CERT_FILE)) throw new Error('TLS_KEY_FILE is set without TLS_CERT_FILE: set both, or neither');
    return value;
  }),
  corsOrigins: setting(
    'CORS_ORIGINS',
    undefined,
    'Comma-separated origins allowed by CORS, each `http(s)://host[:port]` exactly as browsers send it (no path, no trailing slash); unset disables CORS (machine-to-machine API).',
    originList('CORS_ORIGINS'),
  ),
  rateLimitEnabled: setting('RATE_LIMIT_ENABLED', 'true', 'Turns every rate limit off when false (load tests only).', boolean('RATE_LIMIT_ENABLED', true)),
  rateLimitWindowSeconds: setting('RATE_LIMIT_WINDOW_SECONDS', '60', 'Length of one rate-limit window.', integer('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400)),
  rateLimitToken: setting('RATE_LIMIT_TOKEN', '30', 'Token requests per window per source IP (stops assertion brute force).', integer('RATE_LIMIT_TOKEN', 30, 1, 1_000_000)),
  rateLimitReads: setting('RATE_LIMIT_READS', '1200', 'GET requests per window per client.', integer('RATE_LIMIT_READS', 1200, 1, 10_000_000)),
  rateLimitWrites: setting('RATE_LIMIT_WRITES', '300', 'POST/PATCH/DELETE requests per window per client.', integer('RATE_LIMIT_WRITES', 300, 1, 10_000_000)),
  rateLimitExports: setting('RATE_LIMIT_EXPORTS', '10', 'Export requests per window per client.', integer('RATE_LIMIT_EXPORTS', 10, 1, 100_000)),
  rateLimitUnauthenticated: setting(
    'RATE_LIMIT_UNAUTHENTICATED',
    '100',
    'Refused authentications (missing, invalid or expired token, bad DPoP proof) per window per source IP on protected routes; past it the address gets 429 before any token is checked.',
    integer('RATE_LIMIT_UNAUTHENTICATED', 100, 1, 10_000_000),
  ),
  rateLimitPublic: setting('RATE_LIMIT_PUBLIC', '600', 'Requests to public routes (health, well-known, status, docs) per window per source IP.', integer('RATE_LIMIT_PUBLIC', 600, 1, 10_000_000)),
  metricsToken: setting(
    'METRICS_TOKEN',
    undefined,
    'Bearer secret (16+ characters) that lets a scraper read `/metrics` from any address; use `METRICS_TOKEN_FILE` to keep it out of the environment.',
    optionalSecret('METRICS_TOKEN', 16),
  ),
  metricsAllow: setting(
    'METRICS_ALLOW',
    '127.0.0.1/32,::1/128',
    'CIDRs that may read `/metrics` without the token (client address after `TRUST_PROXY`); empty allows none.',
    cidrList('METRICS_ALLOW', ['127.0.0.1/32', '::1/128']),
  ),
  securityContact: setting(
    'SECURITY_CONTACT',
    'mailto:security@example.com',
    'Comma-separated `Contact` URIs (`mailto:`, `https:`, `tel:`) of `/.well-known/security.txt`.',
    uriList('SECURITY_CONTACT', ['mailto:', 'https:', 'tel:'], ['mailto:security@example.com']),
  ),
  securityTxtExpires: setting('SECURITY_TXT_EXPIRES', undefined, 'ISO 8601 `Expires` of security.txt; unset means one year after the process started.', optionalTimestamp('SECURITY_TXT_EXPIRES')),
  securityPolicyUrl: setting('SECURITY_POLICY_URL', undefined, 'https URL of the vulnerability disclosure policy (security.txt `Policy`).', optionalUri('SECURITY_POLICY_URL', ['https:'])),
  securityEncryptionUrl: setting(
    'SECURITY_ENCRYPTION_URL',
    undefined,
    'Where reporters find the key to encrypt reports with (security.txt `Encryption`: `https:`, `openpgp4fpr:` or `dns:`).',
    optionalUri('SECURITY_ENCRYPTION_URL', ['https:', 'openpgp4fpr:', 'dns:']),
  ),
  webhookTimeoutMs: setting('WEBHOOK_TIMEOUT_MS', '15000', 'How long a webhook receiver has to answer 2xx before the attempt counts as failed.', integer('WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000)),
  webhookRetrySchedule: setting(
    'WEBHOOK_RETRY_SCHEDULE',
    '5,300,1800,7200,18000,36000,36000',
    'Seconds to wait before each retry of a failed delivery (comma-separated); after the last one the delivery is failed.',
    (raw) => {
      const text = raw === undefined || raw === '' ? '5,300,1800,7200,18000,36000,36000' : raw;
      const values = text.split(',').map((part) => part.trim());
      if (values.length > 20 || values.some((v) => !/^\d{1,6}$/.test(v))) throw new Error(`WEBHOOK_RETRY_SCHEDULE must be up to 20 comma-separated whole numbers of seconds, got "${text}"`);
      return values.map(Number);
    },
  ),
  webhookAllowHttp: setting('WEBHOOK_ALLOW_HTTP', 'false', 'Allow http:// webhook and calendar import URLs (https only otherwise).', boolean('WEBHOOK_ALLOW_HTTP', false)),
  webhookAllowedNetworks: setting(
    'WEBHOOK_ALLOWED_NETWORKS',
    undefined,
    'CIDRs of non-public addresses webhooks and calendar imports may still reach (loopback, private, link-local… are refused otherwise, at creation and at every delivery or fetch).',
    cidrList('WEBHOOK_ALLOWED_NETWORKS', []),
  ),
  smtpUrl: setting(
    'SMTP_URL',
    undefined,
    'SMTP server for one-time passwords by e-mail (`smtp://user:pass@host:587`, `smtps://…`); unset writes each e-mail as an `.eml` file under `DATA_DIR/outbox` (with a warning at start-up).',
    optionalServiceUrl('SMTP_URL', ['smtp:', 'smtps:']),
  ),
  smtpFrom: setting(
    'SMTP_FROM',
    'Booking service <no-reply@localhost>',
    'Sender of sign-in e-mails: `address` or `Name <address>` (not empty).',
    mailbox('SMTP_FROM', 'Booking service <no-reply@localhost>'),
  ),
  smsWebhookUrl: setting(
    'SMS_WEBHOOK_URL',
    undefined,
    'Where one-time passwords by SMS are posted as JSON `{ "to", "body" }` (an http(s) URL of your SMS gateway adapter); unset refuses SMS sign-in.',
    optionalServiceUrl('SMS_WEBHOOK_URL', ['http:', 'https:']),
  ),
  otpDailySmsLimit: setting(
    'OTP_DAILY_SMS_LIMIT',
    '10000',
    'SMS one-time passwords per UTC day for the whole deployment; past it sign-in by SMS answers 429 `daily_limit_reached`.',
    integer('OTP_DAILY_SMS_LIMIT', 10_000, 0, 100_000_000),
  ),
  otpDailyEmailLimit: setting(
    'OTP_DAILY_EMAIL_LIMIT',
    '50000',
    'E-mail one-time passwords per UTC day for the whole deployment; past it sign-in by e-mail answers 429 `daily_limit_reached`.',
    integer('OTP_DAILY_EMAIL_LIMIT', 50_000, 0, 100_000_000),
  ),
  dataKey: setting(
    'DATA_KEY',
    undefined,
    'Key (base64 of 32 bytes) that encrypts TOTP secrets and keys one-time-code hashes; use `DATA_KEY_FILE`. Unset: generated once into `DATA_DIR/data-key` (mode 0600); every instance must share it.',
    optionalSecret('DATA_KEY', 32),
  ),
  oauthProviders: setting(
    'OAUTH_PROVIDERS',
    undefined,
    'External OpenID providers for user sign-in: a JSON array of `{ "id", "issuer", "client_id", "client_secret" }` (use `OAUTH_PROVIDERS_FILE` for the secrets). Issuers must be https (plain http only with `OAUTH_ALLOW_HTTP_ISSUERS`). See docs/oauth-login.md.',
    oauthProviders('OAUTH_PROVIDERS'),
  ),
  oauthAllowHttpIssuers: setting(
    'OAUTH_ALLOW_HTTP_ISSUERS',
    'false',
    'Development only: accept `http://` issuers in `OAUTH_PROVIDERS` (discovery, keys and tokens then travel unprotected). Off, every issuer must be https.',
    allowHttpIssuers('OAUTH_ALLOW_HTTP_ISSUERS'),
  ),
  oauthRedirectUris: setting(
    'OAUTH_REDIRECT_URIS',
    undefined,
    'Comma-separated URIs an OAuth login may return to with its one-time code, matched as exact strings (no prefix, no wildcard); required with `OAUTH_PROVIDERS`.',
    oauthRedirectUris('OAUTH_REDIRECT_URIS'),
  ),
  otelExporterOtlpEndpoint: setting(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    undefined,
    'OTLP/HTTP collector base URL (`http://collector:4318`): traces go to `{URL}/v1/traces` as JSON, one span per request with its action, tenant and principal type, child spans per transaction and webhook delivery; `traceparent` is continued and sent on webhooks. `OTEL_EXPORTER_OTLP_HEADERS` adds headers. Unset: no tracing, and OpenTelemetry is not loaded.',
    (raw) => {
      const value = optionalText(raw);
      if (value === undefined) return undefined;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw new Error(`OTEL_EXPORTER_OTLP_ENDPOINT "${value}" is not an absolute URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT must be http(s)');
      return value;
    },
  ),
  shutdownGraceMs: setting('SHUTDOWN_GRACE_MS', '10000', 'Time in-flight requests get to finish on SIGTERM.', integer('SHUTDOWN_GRACE_MS', 10_000, 0, 300_000)),
} as const;

export type Settings = typeof settings;
