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
  };
  job_leases: {
    job: string;
    holder: string;
    /** Epoch milliseconds. */
    expires_at: number;
  };
}
