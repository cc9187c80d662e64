import { newRecordId } from '../lib/record-id.js';
import type { Database, Db } from '../db/dialect.js';
import { withRowLock } from '../db/row-lock.js';
import { storedFields } from '../db/schema.js';
import { ApiError, notFound, validationError } from '../http/errors.js';
import type { ResourceDef } from '../registry/types.js';
import { readFieldCapability, sensitiveFields, writeFieldCapability } from '../derive/field-access.js';
import { hasCapability } from '../security/principal.js';
import type { Principal } from '../security/principal.js';
import { appendAudit } from './audit-trail.js';
import { blockingChildren } from './cascade-check.js';
import type { Clock } from './clock.js';
import { nextEtag } from './etag.js';
import { rowToRecord, recordToRow } from './record-codec.js';
import type { ApiRecord, Row } from './record-codec.js';
import { checkReferences } from './references.js';
import type { CountCache } from './count-cache.js';
import { listRows } from './list-records.js';
import type { ListQuery } from '../query/list-query.js';
import type { CreateDraft, HookContext, ResourceHooks } from './resource-hooks.js';
import type { RequestContext } from './request-context.js';
import { tenantFilter } from './tenant-scope.js';
import { validateBody } from './validate-body.js';

/** A record with its current ETag. */
export interface Versioned {
  readonly record: ApiRecord;
  readonly etag: string;
}

/**
 * Create, read, update and delete for every resource. Every query is confined by the
 * principal's tenant scope; every write commits together with its audit entry.
 */
export class ResourceService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly hooks: Readonly<Partial<Record<string, ResourceHooks>>>,
    /** List totals; every committed write below voids the resource's cached totals. */
    private readonly counts?: CountCache,
  ) {}

  /** One page of a list, presented, plus the total number of matches. */
  async list(context: RequestContext, resource: ResourceDef, query: ListQuery): Promise<{ items: ApiRecord[]; total: number }> {
    // Only resources written through this service invalidate their totals (not audit-logs).
    const counts = resource.operations.includes('create') ? this.counts : undefined;
    const page = await listRows(this.database, resource, context.principal, query, counts);
    const items = await this.presentMany(resource, context.principal, page.rows);
    if (query.fields) {
      const keep = new Set(query.fields);
      for (const item of items) for (const key of Object.keys(item)) if (!keep.has(key)) delete item[key];
    }
    return { items, total: page.total };
  }

  async read(context: RequestContext, resource: ResourceDef, id: string): Promise<Versioned> {
    const row = await this.findRow(this.database.db, resource, context.principal, id, false);
    if (!row) throw notFound(resource.name);
    return { record: await this.present(resource, context.principal, row), etag: String(row.etag) };
  }

  async create(context: RequestContext, resource: ResourceDef, body: unknown): Promise<Versioned> {
    const input = validateBody(resource, body, 'create');
    checkFieldWrites(resource, context.principal, input);
    const hooks = this.hooks[resource.name] ?? {};
    const created = await this.database.db.transaction().execute(async (trx) => {
      const hook = this.hookContext(trx, resource, context);
      const owner = hooks.ownerTenant ? await hooks.ownerTenant(hook, input) : ownerTenant(resource, context.principal);
      await checkReferences(trx, this.database.dialect, resource, context.principal.scope, input);
      const initial: CreateDraft = { id: newRecordId(hook.now), owner, values: input };
      const draft = hooks.beforeCreate ? await hooks.beforeCreate(hook, initial) : initial;
      const at = new Date(hook.now).toISOString();
      // Every stored field is present, unset ones as null, exactly as a later read shows it.
      const record: ApiRecord = { ...emptyRecord(resource), ...draft.values, _id: draft.id, tenant_id: draft.owner, created_at: at, updated_at: at };
      checkTimeRange(record);
      const etag = nextEtag(null, record);
      const row = { ...recordToRow(resource, this.database.dialect, record), ...draft.columns, etag };
      await trx.insertInto(resource.table).values(row).execute();
      if (hooks.afterCreate) await hooks.afterCreate(hook, record, input);
      await appendAudit(trx, this.database.dialect, context, {
        category: 'data', action: 'create', resource: resource.name, recordId: draft.id, tenantId: draft.owner,
        oldValues: null, newValues: rowToRecord(resource, this.database.dialect, row),
      }, hook.now);
      return { record: await this.present(resource, context.principal, row, trx), etag };
    });
    this.committed(resource, created.record._id);
    return created;
  }

  async update(context: RequestContext, resource: ResourceDef, id: string, ifMatch: string | undefined, body: unknown): Promise<Versioned> {
    const changes = validateBody(resource, body, 'update');
    checkFieldWrites(resource, context.principal, changes);
    const expected = requireIfMatch(ifMatch);
    const hooks = this.hooks[resource.name] ?? {};
    const updated = await this.database.db.transaction().execute(async (trx) => {
      const hook = this.hookContext(trx, resource, context);
      const row = await this.findRow(trx, resource, context.principal, id, true);
      if (!row) throw notFound(resource.name);
      const current = rowToRecord(resource, this.database.dialect, row);
      const previous = matchEtag(expected, row.etag);
      await checkReferences(trx, this.database.dialect, resource, context.principal.scope, changes);
      const merged: ApiRecord = { ...current, ...changes, updated_at: new Date(hook.now).toISOString() };
      checkTimeRange(merged);
      if (hooks.beforeUpdate) await hooks.beforeUpdate(hook, merged, changes);
      const etag = nextEtag(previous, merged);
      const update = { ...recordToRow(resource, this.database.dialect, { ...changes, updated_at: merged.updated_at }), etag };
      // Compare-and-swap on the ETag: the check and the write are one statement.
      const result = await trx.updateTable(resource.table).set(update).where('_id', '=', id).where('etag', '=', previous).executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) throw staleEtag();
      const changed = Object.keys(changes).filter((k) => JSON.stringify(current[k]) !== JSON.stringify(merged[k]));
      await appendAudit(trx, this.database.dialect, context, {
        category: 'data', action: 'update', resource: resource.name, recordId: id, tenantId: (row.tenant_id as string | null) ?? null,
        oldValues: pick(current, changed), newValues: pick(rowToRecord(resource, this.database.dialect, { ...row, ...update }), changed),
      }, hook.now);
      return { record: await this.present(resource, context.principal, { ...row, ...update }, trx), etag };
    });
    this.committed(resource, id);
    return updated;
  }

  async remove(context: RequestContext, resource: ResourceDef, id: string, ifMatch: string | undefined): Promise<void> {
    const expected = requireIfMatch(ifMatch);
    await this.database.db.transaction().execute(async (trx) => {
      const now = this.clock.now();
      const row = await this.findRow(trx, resource, context.principal, id, true);
      if (!row) throw notFound(resource.name);
      const previous = matchEtag(expected, row.etag);
      const blocking = await blockingChildren(trx, resource, id);
      if (blocking.length > 0) {
        throw new ApiError('cascade_conflict', `The record still has live child records in: ${blocking.join(', ')}. Delete those first.`, { extensions: { blocking_resources: blocking } });
      }
      const result = await trx
        .updateTable(resource.table)
        .set({ deleted_at: this.database.dialect.toDb('timestamp', new Date(now).toISOString()), etag: nextEtag(previous, { deleted: true }) })
        .where('_id', '=', id)
        .where('etag', '=', previous)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) throw staleEtag();
      const snapshot = rowToRecord(resource, this.database.dialect, row);
      await appendAudit(trx, this.database.dialect, context, { category: 'data', action: 'delete', resource: resource.name, recordId: id, tenantId: (row.tenant_id as string | null) ?? null, oldValues: snapshot, newValues: null }, now);
    });
    this.committed(resource, id);
  }

  /** After a write committed: cached totals of the resource are void; hooks drop their caches. */
  private committed(resource: ResourceDef, id: unknown): void {
    this.counts?.invalidate(resource.name);
    this.hooks[resource.name]?.committed?.(String(id));
  }

  /** A live record within the caller's reach, optionally locked for the rest of the transaction. */
  private async findRow(db: Db, resource: ResourceDef, principal: Principal, id: string, lock: boolean): Promise<Row | undefined> {
    let query = db.selectFrom(resource.table).selectAll().where('_id', '=', id);
    if (resource.softDelete) query = query.where('deleted_at', 'is', null);
    const scoped = tenantFilter(resource, principal.scope);
    if (scoped) query = query.where(scoped);
    if (lock) query = withRowLock(query, this.database.dialect, 'update');
    return query.executeTakeFirst();
  }

  /** API form of rows: computed fields added, sensitive fields the caller may not see removed. */
  async presentMany(resource: ResourceDef, principal: Principal, rows: readonly Row[], db: Db = this.database.db): Promise<ApiRecord[]> {
    const records = rows.map((row) => rowToRecord(resource, this.database.dialect, row));
    const hooks = this.hooks[resource.name];
    if (hooks?.expand && records.length > 0) await hooks.expand(db, this.database.dialect, records);
    const hidden = sensitiveFields(resource).filter((field) => !hasCapability(principal, readFieldCapability(resource, field)));
    if (hidden.length > 0) for (const record of records) for (const field of hidden) delete record[field];
    return records;
  }

  private async present(resource: ResourceDef, principal: Principal, row: Row, db: Db = this.database.db): Promise<ApiRecord> {
    const [record] = await this.presentMany(resource, principal, [row], db);
    return record ?? {};
  }

  private hookContext(trx: Db, resource: ResourceDef, context: RequestContext): HookContext {
    return { trx, dialect: this.database.dialect, resource, context, now: this.clock.now() };
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

function emptyRecord(resource: ResourceDef): ApiRecord {
  return Object.fromEntries(storedFields(resource).map((name) => [name, null]));
}

function checkFieldWrites(resource: ResourceDef, principal: Principal, values: Readonly<Record<string, unknown>>): void {
  const denied = sensitiveFields(resource).filter((field) => field in values && !hasCapability(principal, writeFieldCapability(resource, field)));
  if (denied.length > 0) {
    throw new ApiError('field_forbidden', `Writing ${denied.join(', ')} needs ${denied.map((f) => writeFieldCapability(resource, f)).join(', ')}`);
  }
}

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

function staleEtag(): ApiError {
  return new ApiError('precondition_failed', 'The record has changed since it was read (or If-Match is not its current ETag); read it again and retry with the new ETag');
}

function checkTimeRange(record: ApiRecord): void {
  const { start_time: start, end_time: end } = record;
  if (typeof start === 'string' && typeof end === 'string' && end <= start) {
    throw validationError([{ field: 'end_time', message: 'must be after start_time' }]);
  }
}

function pick(record: ApiRecord, keys: readonly string[]): ApiRecord {
  return Object.fromEntries(keys.map((k) => [k, record[k] ?? null]));
}
