import { findAction } from '../actions/index.js';
import type { Config } from '../config/config.js';

/** Which security-relevant features this deployment has, as reported in the posture. */
export interface Features {
  readonly https_listener: boolean;
  readonly dpop: boolean;
  readonly dpop_nonces: boolean;
  readonly rate_limiting: boolean;
  readonly redis_shared_counters: boolean;
  readonly cors: boolean;
  readonly audit_trail: boolean;
  readonly audit_export: boolean;
  readonly audit_purge_job: boolean;
  readonly metrics: boolean;
  readonly status_page: boolean;
  readonly sbom: boolean;
  readonly security_txt: boolean;
  /** End-user sign-in with TOTP second factor (required for administrators by the spec). */
  readonly user_totp_2fa: boolean;
  /** End-user sign-in through external OpenID providers (`OAUTH_PROVIDERS` set). */
  readonly oauth_login: boolean;
  /** GDPR erasure by depersonalisation through the API. */
  readonly gdpr_erasure: boolean;
  /** Outgoing webhook delivery with HMAC-SHA256 signatures. */
  readonly webhook_delivery: boolean;
  /** Backups taken by the service itself. */
  readonly built_in_backups: boolean;
}

/**
 * Features that exist in the code, whatever the configuration. Kept in this one place so
 * the posture and the questionnaire stay honest: flags backed by an operation follow from
 * the declared actions; set the others to `true` in the change that ships the feature
 * (the questionnaire then answers from it).
 */
const implemented = {
  dpop: true,
  audit_trail: true,
  audit_export: findAction('audit-logs.export') !== undefined,
  metrics: true,
  status_page: true,
  sbom: true,
  security_txt: true,
  user_totp_2fa: findAction('users.totp-verify') !== undefined,
  gdpr_erasure: findAction('users.erase') !== undefined,
  webhook_delivery: findAction('webhooks.test') !== undefined,
  built_in_backups: false,
} as const;

/** Code-level features plus those the configuration switches. */
export function features(config: Config, rateLimiting: boolean): Features {
  return {
    ...implemented,
    https_listener: Boolean(config.tlsCertFile && config.tlsKeyFile),
    dpop_nonces: config.dpopNonces,
    rate_limiting: rateLimiting,
    redis_shared_counters: rateLimiting && config.redisUrl !== undefined,
    cors: config.corsOrigins.length > 0,
    audit_purge_job: config.auditPurgeIntervalMinutes > 0,
    oauth_login: findAction('users.oauth-start') !== undefined && (config.oauthProviders?.length ?? 0) > 0,
  };
}
