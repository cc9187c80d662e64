/**
 * Every environment variable the service reads: name, default, meaning and parser, each
 * written once here (the kinds are in `setting-kinds.ts`). docs/configuration.md is generated
 * from this list (`npm run docs`), and a test checks it is current.
 */
import { oauthProviders, oauthRedirectUris } from './oauth-parsers.js';
import { cidrList, optionalSecret, optionalTimestamp, optionalUri, uriList } from './security-parsers.js';
import { listenHost, mailbox, optionalServiceUrl, originList } from './service-parsers.js';
import { booleanSetting, defaulted, enumSetting, fileSetting, filePair, httpUrl, httpUrlSetting, integerSetting, optionalIntegerSetting, optionalText, setting, textSetting } from './setting-kinds.js';

export type { Setting } from './setting-kinds.js';

// Declared ahead of the list: other settings' defaults and checks read them.
const port = integerSetting('PORT', 3000, [0, 65_535], 'TCP port to listen on.');
const localOrigin = (portText: string | number) => `http://localhost:${portText}`;
const databaseUrl = textSetting('DATABASE_URL', '`postgres://…` switches storage to PostgreSQL; unset uses SQLite in `DATA_DIR`.');
const [tlsCertFile, tlsKeyFile] = filePair(
  { env: 'TLS_CERT_FILE', description: 'PEM certificate chain; with `TLS_KEY_FILE` the service serves HTTPS itself (TLS 1.2 minimum).' },
  { env: 'TLS_KEY_FILE', description: 'PEM private key for `TLS_CERT_FILE`.' },
);
// A development switch: a provider reached over plain http (a local Keycloak, the tests'
// in-process oidc-provider) could have its discovery, keys and tokens replaced in transit.
const oauthAllowHttpIssuers = booleanSetting(
  'OAUTH_ALLOW_HTTP_ISSUERS',
  false,
  'Development only: accept `http://` issuers in `OAUTH_PROVIDERS` (discovery, keys and tokens then travel unprotected). Off, every issuer must be https.',
);
const oauthProviderList = setting({
  env: 'OAUTH_PROVIDERS',
  description:
    'External OpenID providers for user sign-in: a JSON array of `{ "id", "issuer", "client_id", "client_secret" }` (use `OAUTH_PROVIDERS_FILE` for the secrets). Issuers must be https (plain http only with `OAUTH_ALLOW_HTTP_ISSUERS`). See docs/oauth-login.md.',
  parse: oauthProviders(oauthAllowHttpIssuers),
});

export const settings = {
  port,
  host: defaulted({ env: 'HOST', default: '0.0.0.0', description: 'Interface to bind: an IP address or a host name.', parse: listenHost }),
  publicUrl: setting({
    env: 'PUBLIC_URL',
    defaultText: localOrigin(`$${port.env}`),
    description: 'Origin clients reach the service at; the issuer is `{PUBLIC_URL}/v1` and assertions must use `{PUBLIC_URL}/v1/auth/token` as `aud`.',
    parse: (raw, { name }, read) => {
      // Without trailing slash: paths are appended to it.
      const origin = (optionalText(raw) ?? localOrigin(port.parse(read(port), read))).replace(/\/+$/, '');
      const url = httpUrl(name, origin);
      if (url.search || url.hash) throw new Error(`${name} must not carry a query or fragment`);
      return origin;
    },
  }),
  dataDir: textSetting('DATA_DIR', './data', 'Directory for the embedded SQLite database and generated signing keys.'),
  databaseUrl,
  databaseDirectUrl: setting({
    env: 'DATABASE_DIRECT_URL',
    defaultText: `$${databaseUrl.env}`,
    description:
      'A `postgres://…` URL straight to the server, for LISTEN (cache invalidation between instances) and migrations. Set it when `DATABASE_URL` goes through PgBouncer in transaction mode: the pool then keeps no session state (docs/operations.md, "Through PgBouncer").',
    parse: (raw, _own, read) => optionalText(raw) ?? optionalText(read(databaseUrl)),
  }),
  dbPoolSize: integerSetting('DB_POOL_SIZE', 10, [1, 1000], 'PostgreSQL connection pool size.'),
  dbStatementTimeoutMs: integerSetting('DB_STATEMENT_TIMEOUT_MS', 5000, [100, 600_000], 'PostgreSQL statement timeout (bounds `$regex` and any runaway query).'),
  logLevel: enumSetting('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'pino log level (`fatal` … `trace`, or `silent`).'),
  listCountCacheMs: integerSetting(
    'LIST_COUNT_CACHE_MS',
    1000,
    [0, 60_000],
    'How long a list total may be reused while no write to the resource committed on this instance; 0 counts on every request.',
  ),
  bodyLimitBytes: integerSetting('BODY_LIMIT_BYTES', 102_400, [1024, 10_485_760], 'Largest accepted request body (413 above).'),
  accessTokenTtlSeconds: integerSetting('ACCESS_TOKEN_TTL_SECONDS', 900, [60, 86_400], 'Access token lifetime (`expires_in`).'),
  clockSkewSeconds: integerSetting('CLOCK_SKEW_SECONDS', 60, [0, 300], 'Tolerated clock difference for assertion and proof times.'),
  keyOverlapDays: integerSetting('KEY_OVERLAP_DAYS', 30, [0, 365], 'Default days a client key stays valid after a new key is added.'),
  signingKeysFile: fileSetting('SIGNING_KEYS_FILE', 'Private JWKS (ES512) to sign access tokens with; unset generates and stores one in `DATA_DIR`.'),
  signingKeyPublishDelaySeconds: integerSetting(
    'SIGNING_KEY_PUBLISH_DELAY_SECONDS',
    360,
    [0, 86_400],
    'How long a rotated signing key is only published (JWKS) before it signs; covers JWKS caches (300 s) and the key-file reload (60 s).',
  ),
  es512Signer: enumSetting(
    'ES512_SIGNER',
    'auto',
    ['auto', 'libcrypto', 'node'],
    'What signs access tokens: `auto` (the system OpenSSL `libcrypto.so.3` when usable, about 7× faster at P-521, else node:crypto), `libcrypto` (required: refuse to start without it) or `node`.',
  ),
  trustProxy: defaulted({
    env: 'TRUST_PROXY',
    default: [],
    description: 'Comma-separated CIDRs (or addresses) of proxies whose `X-Forwarded-For` is believed; unset believes none.',
    parse: cidrList,
  }),
  dpopNonces: booleanSetting('DPOP_NONCE', false, 'Require server-issued DPoP nonces (`DPoP-Nonce`, `use_dpop_nonce`).'),
  dpopNonceSecret: setting({
    env: 'DPOP_NONCE_SECRET',
    description: 'Secret (≥ 32 characters) that signs DPoP nonces; set the same value on every instance, or each accepts only its own nonces. Unset: random per process.',
    parse: (raw, { name }) => {
      const value = optionalText(raw);
      if (value !== undefined && value.length < 32) throw new Error(`${name} must be at least 32 characters`);
      return value;
    },
  }),
  redisUrl: setting({
    env: 'REDIS_URL',
    description: 'Redis (`redis://…` or `rediss://…`) for rate-limit counters shared by every instance (replay protection, jti and DPoP proofs, lives in the database).',
    parse: optionalServiceUrl(['redis:', 'rediss:']),
  }),
  auditRetentionDays: integerSetting('AUDIT_RETENTION_DAYS', 90, [1, 36_500], 'Days audit entries are kept (every category without its own setting).'),
  auditRetentionDataDays: optionalIntegerSetting('AUDIT_RETENTION_DATA_DAYS', [1, 36_500], 'Days `data` (change) entries are kept; default `AUDIT_RETENTION_DAYS`.'),
  auditRetentionSecurityDays: optionalIntegerSetting('AUDIT_RETENTION_SECURITY_DAYS', [1, 36_500], 'Days `security` entries are kept; default `AUDIT_RETENTION_DAYS`.'),
  webhookReceivedRetentionDays: integerSetting(
    'WEBHOOK_RECEIVED_RETENTION_DAYS',
    7,
    [7, 3650],
    'Days the retention job keeps received incoming-webhook events (`GET /v1/webhooks/{id}/received`; duplicates within the window are recognised). At least 7.',
  ),
  webhookDeliveryRetentionDays: integerSetting(
    'WEBHOOK_DELIVERY_RETENTION_DAYS',
    30,
    [1, 3650],
    'Days the retention job keeps finished outgoing webhook deliveries (counted from their last attempt), their attempts and dispatched outbox events; pending deliveries stay until they finish.',
  ),
  tenantContactRetentionDays: integerSetting(
    'TENANT_CONTACT_RETENTION_DAYS',
    30,
    [0, 36_500],
    'Days after a tenant node is deleted before the retention job clears its `contact_email` and shreds the audit values sealed for it; 0 clears it on the next run.',
  ),
  orderHoldSeconds: integerSetting('ORDER_HOLD_SECONDS', 900, [60, 86_400], 'How long a new order holds its units unpaid when its body names no `hold_seconds` (docs/selling.md).'),
  orderExpirySweepSeconds: integerSetting(
    'ORDER_EXPIRY_SWEEP_SECONDS',
    15,
    [0, 60],
    'How often one instance marks orders past their hold `expired` and forgets expired quotes; 0 disables the sweep (holds still stop counting at `expires_at`).',
  ),
  calendarSyncSeconds: integerSetting(
    'CALENDAR_SYNC_SECONDS',
    900,
    [0, 86_400],
    'How often one instance fetches every calendar import (docs/calendars.md); an import with no successful sync for 3 intervals is `stale`. 0 disables the schedule (`POST …/sync` still works).',
  ),
  auditPurgeIntervalMinutes: integerSetting('AUDIT_PURGE_INTERVAL_MINUTES', 60, [0, 10_080], 'How often the retention job runs; 0 disables it (use `cli audit purge`).'),
  tlsCertFile,
  tlsKeyFile,
  corsOrigins: setting({
    env: 'CORS_ORIGINS',
    description: 'Comma-separated origins allowed by CORS, each `http(s)://host[:port]` exactly as browsers send it (no path, no trailing slash); unset disables CORS (machine-to-machine API).',
    parse: originList,
  }),
  rateLimitEnabled: booleanSetting('RATE_LIMIT_ENABLED', true, 'Turns every rate limit off when false (load tests only).'),
  rateLimitWindowSeconds: integerSetting('RATE_LIMIT_WINDOW_SECONDS', 60, [1, 86_400], 'Length of one rate-limit window.'),
  rateLimitToken: integerSetting('RATE_LIMIT_TOKEN', 30, [1, 1_000_000], 'Token requests per window per source IP (stops assertion brute force).'),
  rateLimitReads: integerSetting('RATE_LIMIT_READS', 1200, [1, 10_000_000], 'GET requests per window per client.'),
  rateLimitWrites: integerSetting('RATE_LIMIT_WRITES', 300, [1, 10_000_000], 'POST/PATCH/DELETE requests per window per client.'),
  rateLimitExports: integerSetting('RATE_LIMIT_EXPORTS', 10, [1, 100_000], 'Export requests per window per client.'),
  rateLimitUnauthenticated: integerSetting(
    'RATE_LIMIT_UNAUTHENTICATED',
    100,
    [1, 10_000_000],
    'Refused authentications (missing, invalid or expired token, bad DPoP proof) per window per source IP on protected routes; past it the address gets 429 before any token is checked.',
  ),
  rateLimitPublic: integerSetting('RATE_LIMIT_PUBLIC', 600, [1, 10_000_000], 'Requests to public routes (health, well-known, status, docs) per window per source IP.'),
  metricsToken: setting({
    env: 'METRICS_TOKEN',
    description: 'Bearer secret (16+ characters) that lets a scraper read `/metrics` from any address; use `METRICS_TOKEN_FILE` to keep it out of the environment.',
    parse: optionalSecret(16),
  }),
  metricsAllow: defaulted({
    env: 'METRICS_ALLOW',
    default: ['127.0.0.1/32', '::1/128'],
    description: 'CIDRs that may read `/metrics` without the token (client address after `TRUST_PROXY`); empty allows none.',
    parse: cidrList,
  }),
  securityContact: defaulted({
    env: 'SECURITY_CONTACT',
    default: ['mailto:security@example.com'],
    description: 'Comma-separated `Contact` URIs (`mailto:`, `https:`, `tel:`) of `/.well-known/security.txt`.',
    parse: uriList(['mailto:', 'https:', 'tel:']),
  }),
  securityTxtExpires: setting({
    env: 'SECURITY_TXT_EXPIRES',
    description: 'ISO 8601 `Expires` of security.txt; unset means one year after the process started.',
    parse: optionalTimestamp,
  }),
  securityPolicyUrl: setting({
    env: 'SECURITY_POLICY_URL',
    description: 'https URL of the vulnerability disclosure policy (security.txt `Policy`).',
    parse: optionalUri(['https:']),
  }),
  securityEncryptionUrl: setting({
    env: 'SECURITY_ENCRYPTION_URL',
    description: 'Where reporters find the key to encrypt reports with (security.txt `Encryption`: `https:`, `openpgp4fpr:` or `dns:`).',
    parse: optionalUri(['https:', 'openpgp4fpr:', 'dns:']),
  }),
  webhookTimeoutMs: integerSetting('WEBHOOK_TIMEOUT_MS', 15_000, [100, 120_000], 'How long a webhook receiver has to answer 2xx before the attempt counts as failed.'),
  webhookRetrySchedule: defaulted({
    env: 'WEBHOOK_RETRY_SCHEDULE',
    default: [5, 300, 1800, 7200, 18_000, 36_000, 36_000],
    description: 'Seconds to wait before each retry of a failed delivery (comma-separated); after the last one the delivery is failed.',
    parse: (raw, { name, fallback }): number[] => {
      if (raw === undefined || raw === '') return [...fallback];
      const values = raw.split(',').map((part) => part.trim());
      if (values.length > 20 || values.some((v) => !/^\d{1,6}$/.test(v))) throw new Error(`${name} must be up to 20 comma-separated whole numbers of seconds, got "${raw}"`);
      return values.map(Number);
    },
  }),
  webhookAllowHttp: booleanSetting('WEBHOOK_ALLOW_HTTP', false, 'Allow http:// webhook and calendar import URLs (https only otherwise).'),
  webhookAllowedNetworks: defaulted({
    env: 'WEBHOOK_ALLOWED_NETWORKS',
    default: [],
    description: 'CIDRs of non-public addresses webhooks and calendar imports may still reach (loopback, private, link-local… are refused otherwise, at creation and at every delivery or fetch).',
    parse: cidrList,
  }),
  smtpUrl: setting({
    env: 'SMTP_URL',
    description:
      'SMTP server for one-time passwords by e-mail (`smtp://user:pass@host:587`, `smtps://…`); unset writes each e-mail as an `.eml` file under `DATA_DIR/outbox` (with a warning at start-up).',
    parse: optionalServiceUrl(['smtp:', 'smtps:']),
  }),
  smtpFrom: defaulted({
    env: 'SMTP_FROM',
    default: 'Booking service <no-reply@localhost>',
    description: 'Sender of sign-in e-mails: `address` or `Name <address>` (not empty).',
    parse: mailbox,
  }),
  smsWebhookUrl: setting({
    env: 'SMS_WEBHOOK_URL',
    description: 'Where one-time passwords by SMS are posted as JSON `{ "to", "body" }` (an http(s) URL of your SMS gateway adapter); unset refuses SMS sign-in.',
    parse: optionalServiceUrl(['http:', 'https:']),
  }),
  otpDailySmsLimit: integerSetting(
    'OTP_DAILY_SMS_LIMIT',
    10_000,
    [0, 100_000_000],
    'SMS one-time passwords per UTC day for the whole deployment; past it sign-in by SMS answers 429 `daily_limit_reached`.',
  ),
  otpDailyEmailLimit: integerSetting(
    'OTP_DAILY_EMAIL_LIMIT',
    50_000,
    [0, 100_000_000],
    'E-mail one-time passwords per UTC day for the whole deployment; past it sign-in by e-mail answers 429 `daily_limit_reached`.',
  ),
  dataKey: setting({
    env: 'DATA_KEY',
    description:
      'Key (base64 of 32 bytes) that encrypts TOTP secrets and keys one-time-code hashes; use `DATA_KEY_FILE`. Unset: generated once into `DATA_DIR/data-key` (mode 0600); every instance must share it.',
    parse: optionalSecret(32),
  }),
  oauthProviders: oauthProviderList,
  oauthAllowHttpIssuers,
  oauthRedirectUris: setting({
    env: 'OAUTH_REDIRECT_URIS',
    description: 'Comma-separated URIs an OAuth login may return to with its one-time code, matched as exact strings (no prefix, no wildcard); required with `OAUTH_PROVIDERS`.',
    parse: oauthRedirectUris(oauthProviderList),
  }),
  otelExporterOtlpEndpoint: httpUrlSetting(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'OTLP/HTTP collector base URL (`http://collector:4318`): traces go to `{URL}/v1/traces` as JSON, one span per request with its action, tenant and principal type, child spans per transaction and webhook delivery; `traceparent` is continued and sent on webhooks. `OTEL_EXPORTER_OTLP_HEADERS` adds headers. Unset: no tracing, and OpenTelemetry is not loaded.',
  ),
  shutdownGraceMs: integerSetting('SHUTDOWN_GRACE_MS', 10_000, [0, 300_000], 'Time in-flight requests get to finish on SIGTERM.'),
} as const;

export type Settings = typeof settings;
