import { changeChannel, encodeChange } from '../db/change-feed.js';
import type { CacheKind, ChangeFeed } from '../db/change-feed.js';
import type { Database, Db, DialectName } from '../db/dialect.js';
import { storedFields } from '../db/schema.js';
import { newRecordId } from '../lib/record-id.js';
import { withSpan } from '../observability/tracing.js';
import type { SpanAttributes } from '../observability/tracing.js';
import type { ResourceDef } from '../registry/types.js';
import type { Clock } from '../core/clock.js';
import { nextEtag } from '../core/etag.js';
import { recordToRow, rowToRecord } from './record-codec.js';
import type { ApiRecord, Row } from './record-codec.js';
import type { RequestContext } from '../core/request-context.js';
import { appendAudit } from './audit-trail.js';
import type { AuditEvent } from './audit-trail.js';
import { appendOutbox } from './outbox.js';
import { ScopedQueries } from './scoped-queries.js';
import { userReferences } from './tenant-scope.js';
import { staleEtag } from './stale-etag.js';
import { commitHookOf } from './commit-hooks.js';
import type { InsertedRecord } from './commit-hooks.js';

/** A record about to be inserted: id, owning node, API values and hidden columns. */
export interface NewRecord {
  readonly id: string;
  readonly owner: string | null;
  readonly values: Readonly<Record<string, unknown>>;
  /** Stored alongside but never shown (e.g. a tenant node's path). */
  readonly columns?: Readonly<Record<string, unknown>>;
}

/** A row as written, with its new ETag. */
export interface Written {
  readonly row: Row;
  readonly etag: string;
}

/**
 * One transaction, for one actor, with everything a write needs: scoped queries, and
 * insert/update/delete helpers that apply the value codec and the ETag and append the
 * audit entry and the outbox event in the same transaction — so a committed change has
 * exactly one of each and a rolled-back one has none. HTTP actions, the CLI and background
 * jobs all write through here ({@link runUnitOfWork}).
 */
export class UnitOfWork extends ScopedQueries {
  private readonly afterCommit: (() => void)[] = [];

  /** The records this unit inserted, in order (what a commit hook may name). */
  readonly inserted: InsertedRecord[] = [];

  private readonly changes: ChangeFeed;

  constructor(
    trx: Db,
    database: Database,
    readonly context: RequestContext,
    /** Milliseconds since the epoch, fixed for the whole unit. */
    readonly now: number,
  ) {
    super(trx, database.dialect, context.principal);
    this.changes = database.changes;
  }

  /**
   * The open transaction, for the service's own tables (client keys, replay cache). Resource
   * tables only through {@link scoped} and the write helpers (an architecture test checks).
   */
  get trx(): Db {
    return this.db;
  }

  /** ISO time of this unit. */
  get at(): string {
    return new Date(this.now).toISOString();
  }

  /** Inserts a record: every stored field present (unset ones null), audit `create`, event `<resource>.created`. */
  async insert(resource: ResourceDef, draft: NewRecord): Promise<Written> {
    const at = this.at;
    const record: ApiRecord = { ...emptyRecord(resource), ...this.ownedBy(resource, draft.values), _id: draft.id, tenant_id: draft.owner, created_at: at, updated_at: at };
    const etag = nextEtag();
    const row: Row = { ...recordToRow(resource, this.dialect, record), ...draft.columns, etag };
    await this.db.insertInto(resource.table).values(row).execute();
    this.inserted.push({ resource: resource.name, id: draft.id });
    await this.changed(resource, row, 'create', `${resource.name}.created`, null, rowToRecord(resource, this.dialect, row));
    return { row, etag };
  }

  /**
   * Updates a record from the ETag it was read with (compare-and-swap: the check and the
   * write are one statement); audits the changed fields, event `<resource>.updated`.
   * `action` names a sub-operation that changed the record (audited under its name);
   * `event` replaces the outbox event type (e.g. `users.erased`). A resource without an
   * `update` operation (consents, changed only by erasure) has no `updated` event to send.
   */
  async update(
    resource: ResourceDef,
    current: Row,
    previousEtag: string,
    changes: Readonly<Record<string, unknown>>,
    options: { action?: string; audit?: { old: ApiRecord | null; new: ApiRecord | null }; event?: string; eventData?: Readonly<Record<string, unknown>> } = {},
  ): Promise<Written> {
    const before = rowToRecord(resource, this.dialect, current);
    this.checkControl(resource, current, before);
    const merged: ApiRecord = { ...before, ...changes, updated_at: this.at };
    const etag = nextEtag();
    const update: Row = { ...recordToRow(resource, this.dialect, { ...changes, updated_at: merged.updated_at }), etag };
    const result = await this.db.updateTable(resource.table).set(update).where('_id', '=', String(current._id)).where('etag', '=', previousEtag).executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw staleEtag();
    const row: Row = { ...current, ...update };
    const after = rowToRecord(resource, this.dialect, row);
    const changed = Object.keys(changes).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
    const audit = options.audit ?? { old: pick(before, changed), new: pick(after, changed) };
    const event = options.event ?? (resource.operations.includes('update') ? `${resource.name}.updated` : null);
    await this.changed(resource, row, options.action ?? 'update', event, audit.old, audit.new, options.eventData);
    return { row, etag };
  }

  /**
   * An event about a record that does not change it (a payment refused for its amount),
   * audited under `action` with `details` as its new values, in this transaction.
   */
  async announce(resource: ResourceDef, row: Row, action: string, type: string, details: Readonly<Record<string, unknown>>): Promise<void> {
    await this.changed(resource, row, action, type, null, { ...details }, details);
  }

  /** Soft-deletes a record read with `previousEtag`; the audit entry keeps the full snapshot, event `<resource>.deleted`. */
  async softDelete(resource: ResourceDef, current: Row, previousEtag: string): Promise<void> {
    const before = rowToRecord(resource, this.dialect, current);
    this.checkControl(resource, current, before);
    const result = await this.db
      .updateTable(resource.table)
      .set({ deleted_at: this.dialect.toDb('timestamp', this.at), etag: nextEtag() })
      .where('_id', '=', String(current._id))
      .where('etag', '=', previousEtag)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw staleEtag();
    await this.changed(resource, current, 'delete', `${resource.name}.deleted`, before, null);
  }

  /**
   * The grant ceiling over the action's target, on the row as locked for this write: the
   * executor checked it before the unit began, but the record (a user's role, a client's
   * capabilities) may have changed since.
   */
  private checkControl(resource: ResourceDef, row: Row, record: ApiRecord): void {
    const target = this.context.target;
    if (target !== undefined && target.resource === resource.name && target.id === String(row._id)) target.check(this.principal, record);
  }

  /**
   * Deletes rows of an append-only resource (audit entries past retention) through the
   * database's purge gate; returns how many went. Only the system actor purges.
   */
  async purge(resource: ResourceDef, ids: readonly string[]): Promise<number> {
    if (this.principal.actorType !== 'system') throw new Error('only the system actor purges');
    if (ids.length === 0) return 0;
    return this.dialect.withPurgeGate(this.db, async () => {
      const result = await this.db.deleteFrom(resource.table).where('_id', 'in', [...ids]).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }

  /**
   * A principal that reaches only its own records (a guest) creates records naming itself:
   * an unset user reference defaults to the user (a reference to another user was already
   * refused: that user is out of reach).
   */
  private ownedBy(resource: ResourceDef, values: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
    const owner = this.principal.ownRecordsOf;
    if (owner === undefined || resource.name === 'users') return values;
    const [field] = userReferences(resource);
    if (field === undefined || (values[field] !== undefined && values[field] !== null)) return values;
    return { ...values, [field]: owner };
  }

  /**
   * An audit entry with no record change of its own (security events, purges, sub-operations
   * such as a webhook retry), in this transaction. `as` names another actor than the unit's
   * (a sign-in's user, before the request carries any token).
   */
  audit(event: AuditEvent, as: RequestContext = this.context): Promise<string> {
    return appendAudit(this.db, this.dialect, as, event, this.now);
  }

  /**
   * Caches of `kind` drop `id` once the transaction commits: this process's at once, every
   * other instance's through the database's change feed (PostgreSQL NOTIFY, sent on commit).
   */
  async invalidate(kind: CacheKind, id: string): Promise<void> {
    await this.dialect.notify(this.db, changeChannel, encodeChange({ kind, id }));
    this.onCommit(() => this.changes.emit({ kind, id }));
  }

  /** Runs `fn` once the transaction has committed (cache invalidation); never after a rollback. */
  onCommit(fn: () => void): void {
    this.afterCommit.push(fn);
  }

  /** @internal Called by {@link runUnitOfWork} after commit. */
  committed(): void {
    for (const fn of this.afterCommit) fn();
  }

  /** Audits a change of `row` and records its event `type` (none when `null`). */
  private async changed(resource: ResourceDef, row: Row, action: string, type: string | null, oldValues: ApiRecord | null, newValues: ApiRecord | null, eventData?: Readonly<Record<string, unknown>>): Promise<void> {
    const recordId = String(row._id);
    const tenantId = (row.tenant_id as string | null) ?? null;
    const subject = dataSubject(resource, row);
    const auditId = await this.audit({ category: 'data', action, resource: resource.name, recordId, tenantId, oldValues, newValues, subject });
    if (type !== null) await appendOutbox(this.db, this.dialect, { type, resource: resource.name, recordId, tenantId, data: { ...rowToRecord(resource, this.dialect, row), ...eventData }, auditId }, this.now);
  }
}

/** The unit-of-work span's attributes per dialect (OpenTelemetry's `db.system.name`). */
const spanAttributes: Readonly<Record<DialectName, SpanAttributes>> = { sqlite: { 'db.system.name': 'sqlite' }, postgres: { 'db.system.name': 'postgresql' } };

/**
 * Runs `work` in one transaction as `context`'s actor (a child span of the request's when
 * tracing is on); after commit, runs what the unit
 * registered with `onCommit`. A thrown error rolls everything back (record, audit, outbox).
 */
export async function runUnitOfWork<T>(database: Database, clock: Clock, context: RequestContext, work: (unit: UnitOfWork) => Promise<T>): Promise<T> {
  let unit: UnitOfWork | undefined;
  const result = await withSpan(
    'unit of work',
    'internal',
    spanAttributes[database.dialect.name],
    () =>
      database.db.transaction().execute(async (trx) => {
        unit = new UnitOfWork(trx, database, context, clock.now());
        const result = await work(unit);
        // Last, so it sees every record the work wrote, and commits (or not) with them.
        await commitHookOf(context)?.(trx, unit.inserted);
        return result;
      }),
    context.requestId,
  );
  unit?.committed();
  return result;
}

/** A new record id from the unit's clock. */
export function newId(unit: UnitOfWork): string {
  return newRecordId(unit.now);
}

function emptyRecord(resource: ResourceDef): ApiRecord {
  return Object.fromEntries(storedFields(resource).map((name) => [name, null]));
}

function pick(record: ApiRecord, keys: readonly string[]): ApiRecord {
  return Object.fromEntries(keys.map((k) => [k, record[k] ?? null]));
}

/**
 * Whose personal data a record holds: the user itself, the user it references, or (naming
 * no user) the record itself as `<resource>/<id>`. Audit values are sealed with that key.
 */
export function dataSubject(resource: ResourceDef, row: Row): string {
  if (resource.name === 'users') return String(row._id);
  for (const name of resource.fieldNames) {
    const value = row[name];
    if (resource.fields[name]?.references === 'users' && typeof value === 'string') return value;
  }
  return `${resource.name}/${String(row._id)}`;
}
