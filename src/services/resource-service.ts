import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { staleEtag } from '../data/stale-etag.js';
import { newId, runUnitOfWork } from '../data/unit-of-work.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import type { ErrorCode } from '../http/errors.js';
import type { ResourceDef } from '../registry/types.js';
import { hideFields, sensitiveFields, writeFieldCapability } from '../derive/field-access.js';
import { hasCapability } from '../core/principal.js';
import { assertInitialStatus } from './end-user-status.js';
import type { Principal } from '../core/principal.js';
import { assertNotHeld } from './legal-holds.js';
import { blockingChildren } from './cascade-check.js';
import type { Clock } from '../core/clock.js';
import { rowToRecord } from '../data/record-codec.js';
import type { ApiRecord, Row } from '../data/record-codec.js';
import { checkReferences } from './references.js';
import type { CountCache } from './count-cache.js';
import { listRows } from './list-records.js';
import type { ListQuery } from '../query/list-query.js';
import type { CreateDraft, HookContext, ResourceHooks } from './resource-hooks.js';
import type { RequestContext } from '../core/request-context.js';
import { normaliseBody } from './normalise-body.js';
import { keepFields } from '../query/keep-fields.js';

/** A record with its current ETag. */
export interface Versioned {
  readonly record: ApiRecord;
  readonly etag: string;
  /** Headers the resource's hooks add to the answer (`createHeaders`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Create, read, update and delete for every resource. Reads use scoped queries; every
 * write is one unit of work, so the record, its audit entry and its outbox event commit
 * together (see `src/data/unit-of-work.ts`).
 */
export class ResourceService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly hooks: Readonly<Partial<Record<string, ResourceHooks>>>,
    /** List totals; every committed write below voids the resource's cached totals. */
    private readonly counts?: CountCache,
  ) {}

  /** The 409 codes an update of the resource may answer, as its hooks declare (the OpenAPI document prints them). */
  updateConflicts(resource: string): readonly ErrorCode[] {
    return this.hooks[resource]?.updateConflicts ?? [];
  }

  /** The service's clock (ms since the epoch): reads decide with it what a `held` booking still holds. */
  now(): number {
    return this.clock.now();
  }

  /** Scoped queries for a principal outside any transaction (reads). */
  queries(principal: Principal): ScopedQueries {
    return new ScopedQueries(this.database.db, this.database.dialect, principal);
  }

  /** After a change that removed personal data: drops what it overwrote from the database's files, where the engine can. */
  async purgeOverwritten(): Promise<void> {
    await this.database.purgeOverwritten?.();
  }

  /** Runs `work` as one unit of work for the caller. */
  work<T>(context: RequestContext, work: (unit: UnitOfWork) => Promise<T>): Promise<T> {
    return runUnitOfWork(this.database, this.clock, context, work);
  }

  /** One page of a list, presented, plus the total number of matches. */
  async list(context: RequestContext, resource: ResourceDef, query: ListQuery): Promise<{ items: ApiRecord[]; total: number }> {
    // Only resources written through this service invalidate their totals (not audit-logs).
    const counts = resource.operations.includes('create') ? this.counts : undefined;
    const page = await listRows(this.queries(context.principal), resource, query, counts);
    const items = await this.presentMany(resource, context.principal, page.rows);
    keepFields(items, query.fields);
    return { items, total: page.total };
  }

  async read(context: RequestContext, resource: ResourceDef, id: string): Promise<Versioned> {
    const row = await this.queries(context.principal).find(resource, id);
    if (!row) throw notFound(resource.name);
    // Without an expand hook, presenting a record needs no await (reads by id are hot).
    const record = this.hooks[resource.name]?.expand ? await this.present(resource, context.principal, row) : this.presentOne(resource, context.principal, row);
    return { record, etag: String(row.etag) };
  }

  /** A record in the principal's reach as stored (soft-deleted too, nothing hidden): for a check before a write, never for an answer. */
  async stored(principal: Principal, resource: ResourceDef, id: string): Promise<ApiRecord | undefined> {
    const row = (await this.queries(principal).scoped(resource, { includeDeleted: true }).selectAll().where('_id', '=', id).executeTakeFirst()) as Row | undefined;
    return row && rowToRecord(resource, this.database.dialect, row);
  }

  async create(context: RequestContext, resource: ResourceDef, body: unknown): Promise<Versioned> {
    const input = normaliseBody(resource, body, 'create');
    checkFieldWrites(resource, context.principal, input);
    assertInitialStatus(resource, context.principal, input);
    const hooks = this.hooks[resource.name] ?? {};
    const created = await this.work(context, async (unit) => {
      const hook: HookContext = { unit, resource };
      if (hooks.lock) await hooks.lock(hook, input);
      const owner = hooks.ownerTenant ? await hooks.ownerTenant(hook, input) : ownerTenant(resource, context.principal);
      await checkReferences(unit, resource, input);
      const initial: CreateDraft = { id: newId(unit), owner, values: input };
      const draft = hooks.beforeCreate ? await hooks.beforeCreate(hook, initial) : initial;
      checkTimeRange(draft.values);
      const { row, etag } = await unit.insert(resource, draft);
      const shownOnce = hooks.afterCreate ? await hooks.afterCreate(hook, rowToRecord(resource, this.database.dialect, row), input) : undefined;
      await this.written(unit, resource, draft.id);
      const record = { ...(await this.present(resource, context.principal, row, unit)), ...shownOnce };
      const headers = hooks.createHeaders?.(record);
      return headers ? { record, etag, headers } : { record, etag };
    });
    return created;
  }

  async update(context: RequestContext, resource: ResourceDef, id: string, ifMatch: string | undefined, body: unknown): Promise<Versioned> {
    const changes = normaliseBody(resource, body, 'update');
    checkFieldWrites(resource, context.principal, changes);
    const hooks = this.hooks[resource.name] ?? {};
    return this.work(context, async (unit) => {
      const row = await unit.find(resource, id, { lock: 'update' });
      if (!row) throw notFound(resource.name);
      const previous = matchEtag(requireIfMatch(ifMatch), row.etag);
      const current = rowToRecord(resource, this.database.dialect, row);
      const merged: ApiRecord = { ...current, ...changes };
      const hook: HookContext = { unit, resource };
      if (hooks.lock) await hooks.lock(hook, merged);
      await checkReferences(unit, resource, changes);
      checkTimeRange(merged);
      if (hooks.beforeUpdate) await hooks.beforeUpdate(hook, merged, changes, current);
      const event = hooks.updateEvent?.(merged, changes, current);
      const written = await unit.update(resource, row, previous, changes, event === undefined ? {} : { event });
      await this.written(unit, resource, id);
      return { record: await this.present(resource, context.principal, written.row, unit), etag: written.etag };
    });
  }

  /**
   * A sub-operation on one record (an order's confirm): locks it, checks `If-Match` like an
   * update, runs `work` in the same unit of work, and answers the record as it then stands.
   */
  async act(context: RequestContext, resource: ResourceDef, id: string, ifMatch: string | undefined, work: (unit: UnitOfWork, row: Row) => Promise<void>): Promise<Versioned> {
    return this.work(context, async (unit) => {
      const row = await unit.find(resource, id, { lock: 'update' });
      if (!row) throw notFound(resource.name);
      matchEtag(requireIfMatch(ifMatch), row.etag);
      await work(unit, row);
      const after = (await unit.find(resource, id)) ?? row;
      await this.written(unit, resource, id);
      return { record: await this.present(resource, context.principal, after, unit), etag: String(after.etag) };
    });
  }

  async remove(context: RequestContext, resource: ResourceDef, id: string, ifMatch: string | undefined): Promise<void> {
    await this.work(context, async (unit) => {
      const row = await unit.find(resource, id, { lock: 'update' });
      if (!row) throw notFound(resource.name);
      const previous = matchEtag(requireIfMatch(ifMatch), row.etag);
      const hooks = this.hooks[resource.name] ?? {};
      const stored = rowToRecord(resource, this.database.dialect, row);
      const hook: HookContext = { unit, resource };
      if (hooks.lock) await hooks.lock(hook, stored);
      if (hooks.beforeDelete) await hooks.beforeDelete(hook, stored);
      await assertNotHeld(unit, unit.now, resource, row);
      const blocking = await blockingChildren(unit, resource, id);
      if (blocking.length > 0) {
        throw new ApiError('cascade_conflict', `The record still has live child records in: ${blocking.join(', ')}. Delete those first.`, { extensions: { blocking_resources: blocking } });
      }
      await unit.softDelete(resource, row, previous);
      await this.written(unit, resource, id);
    });
  }

  /** Cached list totals of the resources are void once `unit` commits (writes beyond CRUD: erasure, retention). */
  voidCounts(unit: UnitOfWork, resourceNames: readonly string[]): void {
    unit.onCommit(() => {
      for (const name of resourceNames) this.counts?.invalidate(name);
    });
  }

  /** Once the write commits: cached totals of the resource are void, caches of its records drop it. */
  private async written(unit: UnitOfWork, resource: ResourceDef, id: string): Promise<void> {
    unit.onCommit(() => this.counts?.invalidate(resource.name));
    const cache = this.hooks[resource.name]?.invalidates;
    if (cache) await unit.invalidate(cache, id);
  }

  /**
   * API form of rows: computed fields added, sensitive fields the caller may not see removed
   * (also from audited values, `hideFields`).
   */
  async presentMany(resource: ResourceDef, principal: Principal, rows: readonly Row[], unit?: UnitOfWork): Promise<ApiRecord[]> {
    const records = rows.map((row) => rowToRecord(resource, this.database.dialect, row));
    const hooks = this.hooks[resource.name];
    if (hooks?.expand && records.length > 0) await hooks.expand(unit?.trx ?? this.database.db, this.database.dialect, records);
    for (const record of records) hideFields(resource, principal, record);
    return records;
  }

  /** {@link presentMany} of one row of a resource without an expand hook. */
  private presentOne(resource: ResourceDef, principal: Principal, row: Row): ApiRecord {
    return hideFields(resource, principal, rowToRecord(resource, this.database.dialect, row));
  }

  private async present(resource: ResourceDef, principal: Principal, row: Row, unit?: UnitOfWork): Promise<ApiRecord> {
    const [record] = await this.presentMany(resource, principal, [row], unit);
    return record ?? {};
  }
}

/** The tenant node a new record belongs to: the scope's node; the root only where allowed. */
function ownerTenant(resource: ResourceDef, principal: Principal): string | null {
  const node = principal.scope.nodeId;
  if (node === null && !resource.systemOwned) {
    throw validationError([{ field: 'X-Tenant-Id', message: 'a system-level caller must name the tenant to create this record in' }]);
  }
  return node;
}

function checkFieldWrites(resource: ResourceDef, principal: Principal, values: Readonly<Record<string, unknown>>): void {
  const denied = sensitiveFields(resource).filter((field) => field in values && !hasCapability(principal, writeFieldCapability(resource, field)));
  if (denied.length > 0) {
    const needed = denied.map((f) => writeFieldCapability(resource, f));
    throw new ApiError('field_forbidden', `Writing ${denied.join(', ')} needs ${needed.join(', ')}`, { missingCapabilities: needed });
  }
}

/**
 * The `If-Match` of a write, once its record is known to exist in the caller's reach: a
 * record that is absent or out of reach is 404 whether or not the request was conditional.
 */
function requireIfMatch(ifMatch: string | undefined): string {
  if (ifMatch === undefined || ifMatch.trim() === '') throw new ApiError('precondition_required', 'Send If-Match with the ETag from your last read of the record');
  return ifMatch;
}

/**
 * The stored ETag when `If-Match` lists it (strong comparison, RFC 9110 §13.1.1); `*`
 * and weak tags never match, so nothing bypasses the check.
 */
function matchEtag(ifMatch: string, stored: unknown): string {
  const listed: readonly string[] = ifMatch.match(/(W\/)?"[^"]*"/g) ?? [];
  if (typeof stored === 'string' && listed.includes(stored)) return stored;
  throw staleEtag();
}

function checkTimeRange(record: Readonly<Record<string, unknown>>): void {
  const { start_time: start, end_time: end } = record;
  if (typeof start === 'string' && typeof end === 'string' && end <= start) {
    throw validationError([{ field: 'end_time', message: 'must be after start_time' }]);
  }
}
