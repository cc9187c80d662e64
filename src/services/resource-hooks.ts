import type { CacheKind } from '../db/change-feed.js';
import type { Db, SqlDialect } from '../db/dialect.js';
import type { NewRecord, UnitOfWork } from '../data/unit-of-work.js';
import type { ResourceDef } from '../registry/types.js';
import type { ApiRecord } from '../data/record-codec.js';
import type { ErrorCode } from '../http/errors.js';

/** What a hook may use: the write's unit of work (scoped queries, actor, time) and the resource. */
export interface HookContext {
  readonly unit: UnitOfWork;
  readonly resource: ResourceDef;
}

/** A record about to be inserted. */
export type CreateDraft = NewRecord;

/**
 * Resource-specific behaviour beyond what the registry describes. Each hook runs inside
 * the write's transaction, so whatever it writes commits or rolls back with the record.
 */
export interface ResourceHooks {
  /**
   * Takes the row locks this write's checks rely on, before any other lock of the write
   * (a booking locks its product, so the capacity checks of one product run one at a time).
   * Runs first on create (with the input), right after the record's own lock on update
   * (with the merged record) and on delete (with the stored record).
   */
  lock?(hook: HookContext, values: Readonly<Record<string, unknown>>): Promise<void>;
  /**
   * Fills server-owned values and consumes write-only ones before the insert; `columns`
   * are stored alongside but never shown (e.g. a tenant node's path).
   */
  beforeCreate?(hook: HookContext, draft: CreateDraft): Promise<CreateDraft>;
  /**
   * Writes related rows once the record exists. What it returns is added to the create
   * answer only (a webhook's signing secret), never stored in the record or its audit entry.
   */
  afterCreate?(hook: HookContext, record: ApiRecord, input: Readonly<Record<string, unknown>>): Promise<void | Readonly<Record<string, unknown>>>;
  /** Extra checks on a merged update (cross-field rules, state transitions from `previous`). */
  beforeUpdate?(hook: HookContext, merged: ApiRecord, changes: Readonly<Record<string, unknown>>, previous: ApiRecord): Promise<void>;
  /** Response headers a create's answer carries beside `ETag` and `Location` (an unpriced order's `Deprecation`), from the created record. */
  createHeaders?(record: ApiRecord): Readonly<Record<string, string>> | undefined;
  /** The outbox event of an update when it is not `<resource>.updated` (an order's cancel is `orders.cancelled`). */
  updateEvent?(merged: ApiRecord, changes: Readonly<Record<string, unknown>>, previous: ApiRecord): string | undefined;
  /** Checks before a soft delete, with the record as stored (who may delete it). */
  beforeDelete?(hook: HookContext, record: ApiRecord): Promise<void>;
  /**
   * The 409 problem codes {@link beforeUpdate} may answer: the OpenAPI document declares the
   * 409 on the resource's PATCH from this list (test/api/openapi/responses-conform.test.ts).
   */
  readonly updateConflicts?: readonly ErrorCode[];
  /** Adds computed fields to records about to be returned. */
  expand?(db: Db, dialect: SqlDialect, records: ApiRecord[]): Promise<void>;
  /** A cache that holds records of this resource: every write to one invalidates it (all instances). */
  readonly invalidates?: CacheKind;
  /** Owner tenant of a new record when it differs from the caller's scope node. */
  ownerTenant?(hook: HookContext, values: Readonly<Record<string, unknown>>): Promise<string | null>;
}
