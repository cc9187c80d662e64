import type { Generated } from 'kysely';

/**
 * Rows of the service's own tables, typed for Kysely. Resource tables stay open records:
 * their columns derive from the registry at run time. A timestamp column holds ISO text on
 * SQLite and a `timestamptz` on PostgreSQL; `unknown` until read through the dialect.
 */
export interface ServiceTables {
  api_client_keys: {
    client_id: string;
    kid: string;
    alg: string;
    jwk: string;
    thumbprint: string;
    created_at: unknown;
    active_until: unknown;
  };
  replay_cache: {
    namespace: string;
    key: string;
    /** Epoch seconds. */
    expires_at: number;
  };
  outbox_events: {
    _id: string;
    created_at: unknown;
    tenant_id: string | null;
    type: string;
    resource: string;
    record_id: string;
    audit_id: string;
    data: unknown;
    dispatched_at: unknown;
  };
  idempotency_keys: {
    scope: string;
    key: string;
    fingerprint: string;
    state: string;
    status: number | null;
    headers: unknown;
    body: unknown;
    /** Epoch milliseconds. */
    created_at: number;
    /** Epoch milliseconds. */
    expires_at: number;
    /** The record the stored answer is about (erasure depersonalises it with the record). */
    resource: string | null;
    record_id: string | null;
  };
  otp_challenges: {
    _id: string;
    tenant_id: string;
    channel: string;
    /** HMAC of tenant, channel and normalised destination (the destination itself is not stored). */
    destination_key: string;
    user_id: string | null;
    code_hash: string;
    attempts: number;
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
  product_booking_spans: {
    /** A product that has had a booking (no row: none yet, or from before the table; look back 366 days). */
    product_id: string;
    /** Its longest booking so far, `end_time − start_time` in ms; only ever grows. */
    longest_ms: number;
  };
  otp_resend_locks: {
    /** HMAC of tenant, channel and destination (as `otp_challenges.destination_key`). */
    destination_key: string;
    /** When the last code to this destination was sent (epoch ms); the next waits 60 s. */
    sent_at: number;
  };
  otp_daily_counts: {
    /** UTC day, `YYYY-MM-DD`. */
    day: string;
    channel: string;
    sent: number;
  };
  user_totp: {
    user_id: string;
    /** AES-256-GCM under the data key. */
    secret: string;
    enabled: number;
    /** Last accepted TOTP time step (replay protection). */
    last_step: number;
    /** JSON array of HMACs of the unused recovery codes. */
    recovery_codes: string;
    created_at: number;
    /** Consecutive refused TOTP codes since the last accepted one (migration 0022; defaults to 0). */
    failed_tries: Generated<number>;
    /** Epoch ms until which TOTP codes are refused unchecked; 0: not locked (defaults to 0). */
    locked_until: Generated<number>;
  };
  mfa_challenges: {
    token_hash: string;
    user_id: string;
    attempts: number;
    expires_at: number;
    used_at: number | null;
  };
  webhook_secrets: {
    webhook_id: string;
    /** AES-256-GCM under the data key. */
    secret: string;
    /** The secret before the last rotation, still signing until `previous_until`. */
    previous: string | null;
    previous_until: number | null;
  };
  webhook_deliveries: {
    _id: string;
    tenant_id: string | null;
    webhook_id: string;
    event_id: string;
    type: string;
    /** The JSON body, fixed at fan-out so every attempt sends the same bytes. */
    payload: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    /** Timestamps as the dialect stores them (the list query language reads these). */
    next_attempt_at: unknown;
    /** When the attempt under way was claimed; null while none is (migration 0024). */
    claimed_at: unknown;
    created_at: unknown;
    updated_at: unknown;
  };
  webhook_delivery_attempts: {
    _id: string;
    tenant_id: string | null;
    webhook_id: string;
    delivery_id: string;
    /** 1 for the first attempt of the delivery, then 2, 3, … (retries included). */
    attempt: number;
    /** The receiver's HTTP status; null when it did not answer (timeout, refused address). */
    status_code: number | null;
    error: string | null;
    /** Timestamps as the dialect stores them (the attempts list reads these). */
    started_at: unknown;
    finished_at: unknown;
    duration_ms: number;
    created_at: unknown;
    updated_at: unknown;
  };
  webhook_received: {
    webhook_id: string;
    /** The sender's event id. */
    event_id: string;
    /** SHA-256 of the raw body: the same id with another body is refused. */
    fingerprint: string;
    /** `processing` while the first delivery runs, then `done`. */
    state: string;
    type: string | null;
    outcome: string | null;
    detail: string | null;
    received_at: number;
  };
  quotes: {
    /** The opaque `quote_id` handed to the caller. */
    quote_id: string;
    tenant_id: string | null;
    /** The quote as answered (JSON): product, times, quantity, currency, periods, lines, total. */
    body: string;
    /** Epoch milliseconds: the quote is refused (`expired`) from then on, and purged. */
    expires_at: number;
  };
  calendar_feeds: {
    /** One export feed per product. */
    product_id: string;
    tenant_id: string | null;
    /** SHA-256 (hex) of the secret in the feed's URL: how a request finds its feed. */
    secret_hash: string;
    /** The secret, sealed under the data key, so the feed URL can be shown again. */
    secret: string;
    /** Epoch milliseconds. */
    created_at: number;
  };
  job_leases: {
    job: string;
    holder: string;
    /** Epoch milliseconds. */
    expires_at: number;
  };
  oauth_states: {
    /** HMAC of the `state` sent to the provider. */
    state_hash: string;
    provider: string;
    tenant_id: string;
    /** The whitelisted URI the login returns to. */
    redirect_uri: string;
    /** The application's own `state`, handed back with the login code. */
    app_state: string | null;
    /** PKCE verifier, AES-256-GCM under the data key. */
    code_verifier: string;
    nonce: string;
    /** Epoch milliseconds. */
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
  oauth_login_codes: {
    /** HMAC of the one-time login code. */
    code_hash: string;
    provider: string;
    tenant_id: string;
    user_id: string;
    /** Epoch milliseconds. */
    created_at: number;
    expires_at: number;
    used_at: number | null;
  };
}

/**
 * Tables that hold the run-time state of the processes using a database, not its data:
 * `job_leases` names the process that runs a background job until the lease expires. A copy
 * of the database (`cli restore`, `cli move-to-postgres`) leaves them behind: carried over,
 * a lease of the old process would make the new one skip that job's next run.
 */
export const runtimeStateTables: readonly (keyof ServiceTables)[] = ['job_leases'];
