import type { SecurityPosture } from './posture.js';

/** One pre-filled answer of the vendor security questionnaire. */
export interface QuestionnaireAnswer {
  readonly id: string;
  readonly question: string;
  readonly answer: string;
  /** Where a reviewer can verify the answer: posture members and documentation. */
  readonly evidence: string;
}

const postureUrl = 'GET /v1/security/json';

function yesNo(flag: boolean, yes: string, no: string): string {
  return flag ? `Yes. ${yes}` : no;
}

function list(items: readonly string[]): string {
  return items.join(', ');
}

/**
 * Answers to the questions vendor-security reviews usually ask, derived only from the
 * posture, so the questionnaire never claims more than the running deployment does.
 * "Not implemented" is said where that is the truth.
 */
export function questionnaire(p: SecurityPosture): QuestionnaireAnswer[] {
  const f = p.features;
  const t = p.transport;
  const retention = p.audit.retention_days;
  const limits = p.rate_limits;
  const q = (id: string, question: string, answer: string, pointer: string, docs?: string): QuestionnaireAnswer => ({
    id,
    question,
    answer,
    evidence: `${postureUrl} ${pointer}${docs ? `; ${docs}` : ''}`,
  });
  return [
    q(
      'encryption-in-transit',
      'Is data encrypted in transit?',
      t.tls === 'enabled'
        ? `Yes. The service terminates TLS itself with ${t.minimum_tls_version} as the minimum version.`
        : t.tls === 'terminated by proxy'
          ? `Yes, at the edge: TLS is terminated by a reverse proxy in front of the service (${t.minimum_tls_version}); the proxy-to-service hop is plain HTTP.`
          : 'No. This deployment serves plain HTTP (no TLS certificate configured and the public URL is http); configure TLS_CERT_FILE/TLS_KEY_FILE or a TLS-terminating proxy.',
      '#/transport',
      'docs/configuration.md (TLS_CERT_FILE)',
    ),
    q('encryption-at-rest', 'Is data encrypted at rest?', `Not implemented by the service: ${p.data.encryption_at_rest}. Storage: ${p.data.storage}.`, '#/data'),
    q(
      'api-authentication',
      'How do API clients authenticate?',
      `OAuth 2.0 client credentials with ${list(p.client_authentication.token_endpoint_auth_methods)} (RFC 7523): clients sign assertions with their own private key (${list(p.client_authentication.assertion_signing_algs)}); no shared secrets exist. Assertions live at most ${p.client_authentication.assertion_max_lifetime_seconds} s and each jti is accepted once.`,
      '#/client_authentication',
      'docs/authentication.md',
    ),
    q(
      'token-lifetime',
      'How long are access tokens valid, and are there refresh tokens?',
      `Access tokens are ${p.access_tokens.format} signed with ${p.access_tokens.signing_alg} and valid for ${p.access_tokens.lifetime_seconds} s. ${p.access_tokens.refresh_tokens ? 'Refresh tokens are issued.' : 'No refresh tokens are issued.'}`,
      '#/access_tokens',
    ),
    q(
      'token-binding',
      'Can tokens be bound to the client (proof of possession)?',
      yesNo(p.dpop.supported, `DPoP (RFC 9449) with ${list(p.dpop.signing_algs)}; server nonces are ${p.dpop.nonce_required ? 'required' : 'not required'}.`, 'No.'),
      '#/dpop',
      'docs/authentication.md',
    ),
    q(
      'credential-rotation',
      'Can client credentials be rotated without downtime?',
      `Yes. A client may hold several keys; after a new key is added the previous one stays valid for ${p.client_authentication.key_rotation_overlap_days} days by default. Access-token signing keys rotate with overlap and are published at ${p.access_tokens.jwks_uri}.`,
      '#/client_authentication/key_rotation_overlap_days',
    ),
    q(
      'admin-mfa',
      'Is multi-factor authentication required for administrative users?',
      f.user_totp_2fa
        ? `Yes. End users sign in with an e-mailed or texted one-time password; administrative actions by users require a TOTP (RFC 6238) second factor in the same session (RFC 9470 step-up), enforced in the security pipeline from each action's declaration.${f.oauth_login ? ' Users who sign in through an external OpenID provider need the same TOTP step-up.' : ''}`
        : 'Not implemented: end-user sign-in (and with it the TOTP second factor the specification requires for administrators) does not exist yet. Administration happens through API clients authenticated by private keys and through the operator CLI on the host.',
      '#/features/user_totp_2fa',
    ),
    q(
      'access-control',
      'How is access to data and functions controlled?',
      `${p.authorization.model}: every route declares one of ${p.authorization.capabilities} capabilities, and a token only carries capabilities assigned to its client. Sensitive fields need their own field capabilities.`,
      '#/authorization',
      'docs/authentication.md',
    ),
    q(
      'tenant-isolation',
      "How is one customer's data isolated from another's?",
      `Logical isolation in a shared database: ${p.authorization.tenant_isolation}. Acting in another tenant requires a system-level client.`,
      '#/authorization/tenant_isolation',
      'docs/tenancy.md',
    ),
    q(
      'network-restrictions',
      'Can API access be restricted to known networks?',
      `Yes. Each API client can carry an IP allowlist (CIDRs), checked on token requests and on every API call. ${p.network.trusted_proxies} trusted proxy range(s) are configured for X-Forwarded-For.`,
      '#/client_authentication/ip_allowlist_per_client',
    ),
    q(
      'audit-logging',
      'Are changes and security events logged in an audit trail?',
      yesNo(
        f.audit_trail,
        `Every change is written in the same transaction as the change itself (who, what, when, client IP, old and new values, full snapshot on delete). The table is append-only in the database.${f.audit_export ? ' Entries can be exported as NDJSON or CSV.' : ''}`,
        'No.',
      ),
      '#/audit',
      'docs/api.md',
    ),
    q(
      'audit-retention',
      'How long are audit logs retained?',
      `Data-change entries ${retention.data} days, security entries ${retention.security} days (configurable per category). ${f.audit_purge_job ? `A purge job runs every ${p.audit.purge_interval_minutes} minutes and skips entries under legal hold.` : 'The automatic purge job is disabled; purges run through the operator CLI.'}`,
      '#/audit/retention_days',
      'docs/operations.md',
    ),
    q(
      'data-deletion',
      'Can personal data be deleted on request (GDPR erasure)?',
      f.gdpr_erasure
        ? "Yes, by depersonalisation: POST /v1/users/{id}/erase replaces every personal and special field of the user and of every record referencing the user (derived from the registry's GDPR classes) in one transaction, and destroys the user's data keys, so personal values sealed in the append-only audit trail become unreadable (crypto-shredding). Legal holds block it (409). Non-personal facts (amounts, times, statuses) are kept. Subject export: GET /v1/users/{id}/export. Database backups made before an erasure still hold the data until they expire."
        : 'Not implemented as an API operation yet: records can be soft-deleted, and every field carries a GDPR classification for the planned erasure, but depersonalisation is not available.',
      '#/features/gdpr_erasure',
      'docs/gdpr.md',
    ),
    q(
      'rate-limiting',
      'Is rate limiting in place?',
      limits === 'not configured'
        ? 'Not configured in this deployment.'
        : `Yes, per endpoint group (${Object.entries(limits.groups)
            .map(([g, l]) => `${g}: ${l.limit} per ${l.window_seconds} s by ${l.keyed_by}`)
            .join('; ')}); counters in ${limits.store}.`,
      '#/rate_limits',
    ),
    q(
      'input-validation',
      'How are requests validated?',
      `Bodies are validated against schemas derived from the resource registry; unknown and server-owned fields are refused. Bodies above ${p.request_limits.body_limit_bytes} bytes are refused (413), pages hold at most ${p.request_limits.max_page_size} items, and filters accept only whitelisted operators with parameterised SQL.`,
      '#/request_limits',
      'docs/api.md',
    ),
    q(
      'secrets-in-logs',
      'Are secrets or credentials ever written to logs?',
      `No. Logs are ${p.logging.format}; ${list(p.logging.redacted_fields)} are censored, and refusal reasons are logged without the credential.`,
      '#/logging',
    ),
    q(
      'vulnerability-disclosure',
      'Is there a vulnerability disclosure process?',
      yesNo(
        f.security_txt,
        `An RFC 9116 security.txt at ${p.vulnerability_disclosure.security_txt} names ${list(p.vulnerability_disclosure.contacts)}${p.vulnerability_disclosure.policy ? ` and the policy ${p.vulnerability_disclosure.policy}` : ''}.`,
        'No.',
      ),
      '#/vulnerability_disclosure',
    ),
    q('sbom', 'Is a software bill of materials available?', yesNo(f.sbom, `${p.sbom.format}, generated from the lockfile at build time, at ${p.sbom.url}.`, 'No.'), '#/sbom'),
    q(
      'monitoring',
      'Is the service monitored?',
      `Health (/health), readiness (/ready) and a public status page (/status) are served; Prometheus metrics at /metrics are protected by ${p.metrics.protection}.`,
      '#/metrics',
      'docs/operations.md',
    ),
    q(
      'backup',
      'Are backups taken, and is restore tested?',
      f.built_in_backups ? 'Yes.' : `Not implemented by the service: backups are the operator's responsibility for the ${p.data.storage} storage (e.g. pg_dump or volume snapshots).`,
      '#/features/built_in_backups',
      'docs/operations.md',
    ),
  ];
}
