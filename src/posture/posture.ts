import type { Config } from '../config/config.js';
import type { DialectName } from '../db/dialect.js';
import { capabilities } from '../actions/capabilities.js';
import type { RateLimitPolicy } from '../edge/rate-limit.js';
import type { MetricsProtection } from '../observability/metrics-access.js';
import { MAX_PER_PAGE } from '../query/limits.js';
import { dpopAlgorithms } from '../core/dpop-algorithms.js';
import { retentionFromConfig } from '../services/audit-retention.js';
import type { RetentionDays } from '../services/audit-retention.js';
import { features } from './features.js';
import type { Features } from './features.js';

/** What {@link securityPosture} is computed from: the running configuration and wiring. */
export interface PostureInputs {
  readonly config: Config;
  readonly storage: DialectName;
  readonly version: string;
  readonly metrics: { readonly protection: MetricsProtection; readonly allowedNetworks: number };
  /** The rate limiter's policies by group; absent when no limiter is installed. */
  readonly rateLimits?: Readonly<Record<string, RateLimitPolicy>>;
  /** Log fields the logger censors. */
  readonly redactedLogFields: readonly string[];
  /** What computes access-token signatures (es512-signer.ts). */
  readonly tokenSigner: string;
  /** Milliseconds since the epoch. */
  readonly now: number;
}

export type TlsMode = 'enabled' | 'terminated by proxy' | 'disabled';

/** The service's security posture as served by `GET /v1/security/json`. */
export interface SecurityPosture {
  readonly service: { readonly name: 'booking-service'; readonly version: string; readonly generated_at: string };
  readonly transport: { readonly tls: TlsMode; readonly minimum_tls_version: string | null; readonly public_url_https: boolean };
  readonly client_authentication: {
    readonly grant_types: readonly string[];
    readonly token_endpoint_auth_methods: readonly string[];
    readonly assertion_signing_algs: readonly string[];
    readonly shared_secrets: false;
    readonly assertion_max_lifetime_seconds: number;
    readonly assertion_replay_protection: string;
    readonly key_rotation_overlap_days: number;
    readonly ip_allowlist_per_client: true;
  };
  readonly access_tokens: {
    readonly format: string;
    readonly signing_alg: 'ES512';
    readonly signer: string;
    readonly lifetime_seconds: number;
    readonly refresh_tokens: false;
    readonly jwks_uri: string;
  };
  readonly dpop: { readonly supported: true; readonly signing_algs: readonly string[]; readonly nonce_required: boolean };
  readonly clock_skew_seconds: number;
  readonly authorization: { readonly model: string; readonly capabilities: number; readonly tenant_isolation: string };
  readonly rate_limits:
    'not configured' | { readonly store: string; readonly groups: Readonly<Record<string, { readonly limit: number; readonly window_seconds: number; readonly keyed_by: string }>> };
  readonly audit: { readonly append_only: true; readonly same_transaction_as_change: true; readonly retention_days: RetentionDays; readonly purge_interval_minutes: number };
  readonly request_limits: { readonly body_limit_bytes: number; readonly max_page_size: number };
  readonly network: { readonly trusted_proxies: number; readonly cors: { readonly enabled: boolean; readonly origins: readonly string[] } };
  readonly metrics: { readonly protection: MetricsProtection; readonly allowed_networks: number };
  readonly logging: { readonly format: 'JSON'; readonly redacted_fields: readonly string[] };
  readonly data: { readonly storage: DialectName; readonly encryption_at_rest: string; readonly signing_keys: string; readonly shared_state: string };
  readonly vulnerability_disclosure: { readonly security_txt: string; readonly contacts: readonly string[]; readonly policy: string | null };
  readonly sbom: { readonly format: string; readonly url: string };
  readonly features: Features;
}

function tlsMode(config: Config): TlsMode {
  if (config.tlsCertFile && config.tlsKeyFile) return 'enabled';
  return config.publicUrl.startsWith('https:') ? 'terminated by proxy' : 'disabled';
}

const minimumTls: Readonly<Record<TlsMode, string | null>> = {
  enabled: 'TLSv1.2',
  'terminated by proxy': 'TLSv1.2 (required of the terminating proxy)',
  disabled: null,
};

function rateLimits(inputs: PostureInputs): SecurityPosture['rate_limits'] {
  if (!inputs.rateLimits) return 'not configured';
  const groups = Object.fromEntries(
    Object.entries(inputs.rateLimits).map(([group, p]) => [group, { limit: p.limit, window_seconds: p.windowSeconds, keyed_by: p.key === 'ip' ? 'source IP' : 'client' }]),
  );
  return { store: inputs.config.redisUrl ? 'redis (shared by all instances)' : 'memory (per instance)', groups };
}

/**
 * The posture computed from what is actually running — configuration, constants of the
 * security code, the wired rate limiter — so it cannot drift from the deployment the way a
 * hand-written document does. Contains no secret: counts and names, never URLs with
 * credentials, tokens or keys.
 */
export function securityPosture(inputs: PostureInputs): SecurityPosture {
  const { config } = inputs;
  const tls = tlsMode(config);
  return {
    service: { name: 'booking-service', version: inputs.version, generated_at: new Date(inputs.now).toISOString() },
    transport: { tls, minimum_tls_version: minimumTls[tls], public_url_https: config.publicUrl.startsWith('https:') },
    client_authentication: {
      grant_types: ['client_credentials'],
      token_endpoint_auth_methods: ['private_key_jwt'],
      assertion_signing_algs: ['ES256', 'ES384', 'ES512'],
      shared_secrets: false,
      // The client-assertion verifier's bound on exp - iat and on the age of iat.
      assertion_max_lifetime_seconds: 300,
      assertion_replay_protection: 'each jti accepted once (atomic insert until the assertion expires)',
      key_rotation_overlap_days: config.keyOverlapDays,
      ip_allowlist_per_client: true,
    },
    access_tokens: {
      format: 'JWT (RFC 9068, typ at+jwt)',
      signing_alg: 'ES512',
      signer: inputs.tokenSigner,
      lifetime_seconds: config.accessTokenTtlSeconds,
      refresh_tokens: false,
      jwks_uri: `${config.publicUrl}/.well-known/jwks.json`,
    },
    dpop: { supported: true, signing_algs: dpopAlgorithms.split(' '), nonce_required: config.dpopNonces },
    clock_skew_seconds: config.clockSkewSeconds,
    authorization: {
      model: 'capability-based, deny by default',
      capabilities: capabilities.length,
      tenant_isolation: "enforced in the data layer; records outside the caller's tenant subtree answer 404",
    },
    rate_limits: rateLimits(inputs),
    audit: { append_only: true, same_transaction_as_change: true, retention_days: retentionFromConfig(config), purge_interval_minutes: config.auditPurgeIntervalMinutes },
    request_limits: { body_limit_bytes: config.bodyLimitBytes, max_page_size: MAX_PER_PAGE },
    network: { trusted_proxies: config.trustProxy.length, cors: { enabled: config.corsOrigins.length > 0, origins: [...config.corsOrigins] } },
    metrics: { protection: inputs.metrics.protection, allowed_networks: inputs.metrics.allowedNetworks },
    logging: { format: 'JSON', redacted_fields: [...inputs.redactedLogFields] },
    data: {
      storage: inputs.storage,
      encryption_at_rest: "not implemented by the service; use an encrypted volume or the database host's encryption",
      signing_keys: config.signingKeysFile ? 'operator-supplied private JWKS file' : 'generated P-521 key in DATA_DIR, file mode 0600',
      shared_state: config.redisUrl ? 'redis: rate-limit counters shared by every instance' : 'none: rate-limit counters are per instance; replay caches live in the database',
    },
    vulnerability_disclosure: { security_txt: `${config.publicUrl}/.well-known/security.txt`, contacts: [...config.securityContact], policy: config.securityPolicyUrl ?? null },
    sbom: { format: 'CycloneDX JSON', url: `${config.apiBase}/security/sbom` },
    features: features(config, inputs.rateLimits !== undefined),
  };
}
