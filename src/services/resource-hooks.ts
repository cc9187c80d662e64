import type { Db, SqlDialect } from '../db/dialect.js';
import type { ResourceDef } from '../registry/types.js';
import type { ApiRecord } from './record-codec.js';
import type { RequestContext } from './request-context.js';

/** What a hook may use: the open transaction and who is asking. */
export interface HookContext {
  readonly trx: Db;
  readonly dialect: SqlDialect;
  readonly resource: ResourceDef;
  readonly context: RequestContext;
  /** Milliseconds since the epoch, from the injected clock. */
  readonly now: number;
}

/** A record about to be inserted. */
export interface CreateDraft {
  readonly id: string;
  readonly owner: string | null;
  readonly values: Readonly<Record<string, unknown>>;
  readonly columns?: Readonly<Record<string, unknown>>;
}

/**
 * Resource-specific behaviour beyond what the registry describes. Each hook runs inside
 * the write's transaction, so whatever it writes commits or rolls back with the record.
 */
export interface ResourceHooks {
  /**
   * Fills server-owned values and consumes write-only ones before the insert; `columns`
   * are stored alongside but never shown (e.g. a tenant node's path).
   */
  beforeCreate?(hook: HookContext, draft: CreateDraft): Promise<CreateDraft>;
  /** Writes related rows once the record exists. */
  afterCreate?(hook: HookContext, record: ApiRecord, input: Readonly<Record<string, unknown>>): Promise<void>;
  /** Extra checks on a merged update (cross-field rules). */
  beforeUpdate?(hook: HookContext, merged: ApiRecord, changes: Readonly<Record<string, unknown>>): Promise<void>;
  /** Adds computed fields to records about to be returned. */
  expand?(db: Db, dialect: SqlDialect, records: ApiRecord[]): Promise<void>;
  /** Runs after an update or delete of the record committed (cache invalidation). */
  committed?(id: string): void;
  /** Owner tenant of a new record when it differs from the caller's scope node. */
  ownerTenant?(hook: HookContext, values: Readonly<Record<string, unknown>>): Promise<string | null>;
}
