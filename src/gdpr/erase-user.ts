import { rewriteOutboxData } from '../data/outbox.js';
import type { Db } from '../db/dialect.js';
import { withRowLock } from '../db/row-lock.js';
import { destroySubjectKeys } from '../data/subject-keys.js';
import type { ScopedQueries } from '../data/scoped-queries.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { erasureChanges, hasPersonalFields } from '../derive/erasure.js';
import { ApiError, notFound } from '../http/errors.js';
import { getResource, resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import { rowToRecord } from '../data/record-codec.js';
import type { Row } from '../data/record-codec.js';
import type { RequestContext } from '../core/request-context.js';
import type { ResourceService } from '../services/resource-service.js';
import { activeAt, heldConflict } from '../services/legal-holds.js';
import { notErased } from './personal-values.js';

const users = getResource('users');
const legalHolds = getResource('legal-holds');

/** Stored answers of idempotent requests (`src/http/idempotency.ts`), rewritten with the records they show. */
export interface StoredAnswers {
  rewriteAnswers(trx: Db, resource: string, recordIds: readonly string[], replace: (body: Record<string, unknown>) => Record<string, unknown>): Promise<number>;
}

/** The answer of `POST /v1/users/{id}/erase`. */
export interface ErasureResult {
  readonly user_id: string;
  readonly erased_at: string;
  /** Records referencing the user, per resource (all of them are depersonalised). */
  readonly records: Record<string, number>;
}

/**
 * Every resource that references users, with the referencing field, read from the
 * registry: a resource added with a `user_id` reference is erased and exported with no
 * change here.
 */
export function userRelations(registry: readonly ResourceDef[] = resources): readonly { resource: ResourceDef; field: string }[] {
  return registry.flatMap((resource) => resource.fieldNames.filter((field) => resource.fields[field]?.references === 'users').map((field) => ({ resource, field })));
}

type Relation = ReturnType<typeof userRelations>[number];

/**
 * Records of one resource one erasure transaction reaches at most (docs/gdpr.md "Erasure"):
 * each costs an update, an audit entry, an outbox event and the rewrite of its events, so a
 * batch holds SQLite's one writer about as long as a few booking creates take.
 */
export const erasureBatchSize = 100;

/**
 * Passes over the records writers gave a personal value again while the erasure ran, before
 * it gives up (409 `conflict`): another pass needs a write of a personal value naming the
 * user to commit between the last batch and the final check.
 */
const maxPasses = 5;

export interface ErasureOptions {
  /** Records per transaction; {@link erasureBatchSize} unless a test needs several batches of a few records. */
  readonly batchSize?: number;
  /** Runs after each committed batch (counted from 1), outside any transaction: where a test interleaves a write or a crash. */
  readonly afterBatch?: (batch: number) => Promise<void>;
}

/**
 * Erasure by depersonalisation (docs/gdpr.md "Erasure"), in short transactions so other
 * writers interleave (SQLite has one writer; PostgreSQL holds no lock for long):
 *
 * 1. the user, locked: a legal hold on the user or a record referencing it refuses the whole
 *    erasure (409) before anything changes; otherwise its personal fields are erased, it is
 *    disabled (its tokens stop at once) and its data key is destroyed;
 * 2. the records that reference the user, any resource, soft-deleted ones too, in batches of
 *    {@link erasureBatchSize} per transaction: personal fields erased, outbox events and
 *    stored answers rewritten, record-level data keys destroyed. A batch is idempotent, so an
 *    erasure cut short is finished by running it again;
 * 3. the user, locked again: only when no record naming it is left to erase (else another
 *    pass over those) does it get `erased_at`, its `users.erased` event and the audit
 *    entry with the counts. Holding the user's lock, no write can name the user anew
 *    (a reference check share-locks the user).
 *
 * Lock order (docs/architecture.md "Lock order"): no transaction of the erasure holds the
 * user's lock while it waits for a record's, so a booking write that locks its booking and
 * then share-locks its user cannot wait on the erasure in a cycle.
 */
export async function eraseUser(service: ResourceService, answers: StoredAnswers, context: RequestContext, userId: string, options: ErasureOptions = {}): Promise<ErasureResult> {
  const result = await erase(service, answers, context, userId, options);
  // The committed erasure, out of the database's files too where the engine allows (SQLite's log).
  await service.purgeOverwritten();
  return result;
}

async function erase(service: ResourceService, answers: StoredAnswers, context: RequestContext, userId: string, options: ErasureOptions): Promise<ErasureResult> {
  const relations = userRelations();
  const size = options.batchSize ?? erasureBatchSize;
  const begun = await service.work(context, (unit) => begin(service, unit, answers, userId, relations));
  let batches = 0;
  /** Every record naming the user, or (`leftOnly`) those not erased yet. */
  const pass = async (leftOnly: boolean) => {
    for (const relation of relations) {
      if (leftOnly && !hasPersonalFields(relation.resource)) continue;
      for (let after = ''; ;) {
        const last = await service.work(context, (unit) => eraseBatch(service, unit, answers, relation, userId, { after, size, leftOnly }));
        if (last === null) break;
        after = last;
        batches += 1;
        await options.afterBatch?.(batches);
        // SQLite: requests that arrived during the batch reach the connection before the next one.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  };
  await pass(false);
  for (let passes = 1; ; passes += 1) {
    const finished = await service.work(context, (unit) => finish(service, unit, answers, userId, relations, begun));
    if (finished) return finished;
    if (passes === maxPasses) {
      throw new ApiError('conflict', 'Records of the user kept getting personal values while it was erased; it is disabled and what was reached is erased: retry the erasure', {
        privateReason: `records still personal after ${maxPasses} passes`,
      });
    }
    await pass(true);
  }
}

/** Step 1: holds, then the user depersonalised and disabled. Answers the user's fields it erased. */
async function begin(service: ResourceService, unit: UnitOfWork, answers: StoredAnswers, userId: string, relations: readonly Relation[]): Promise<string[]> {
  // Erasing disables the user for good: only a caller that could give the user's role may
  // (the executor's and the user update's control check, `src/handlers/controlled-target.ts`).
  const user = await lockedUser(unit, userId);
  const holds = await holdsOnUser(unit, userId, relations);
  if (holds.length > 0) throw heldConflict(holds, 'The user or a record referencing the user');
  const current = rowToRecord(users, unit.dialect, user);
  const changes = erasureChanges(users, current);
  const fields = Object.keys(changes).sort();
  if (current.status !== 'disabled') changes.status = 'disabled';
  if (Object.keys(changes).length > 0) {
    await unit.update(users, user, String(user.etag), changes, { action: 'erase', audit: { old: null, new: { erased_fields: fields } } });
    // The user's tokens stop working on every instance, before any of its records is reached.
    await unit.invalidate('user', userId);
  }
  await userTraces(unit, answers, userId);
  service.voidCounts(unit, [users.name]);
  return fields;
}

/**
 * Step 2, one batch: the next `size` records of `relation` naming the user after `after` (by
 * id), or with `leftOnly` only those not erased yet. Answers the last id, or
 * null when none is left.
 */
async function eraseBatch(
  service: ResourceService,
  unit: UnitOfWork,
  answers: StoredAnswers,
  { resource, field }: Relation,
  userId: string,
  page: { after: string; size: number; leftOnly: boolean },
): Promise<string | null> {
  const system = unit.asSystem();
  const ids = (await batchQuery(system, { resource, field }, userId, page).execute()).map((row) => String(row._id));
  if (ids.length === 0) return null;
  if (hasPersonalFields(resource)) {
    // Only the rows not erased yet are locked, in id order. PostgreSQL re-reads a row a
    // concurrent write changed once that commits, so the update below sees its current ETag,
    // and drops a row that no longer names the user.
    const rows = (await withRowLock(
      system.scoped(resource, { includeDeleted: true }).selectAll().where('_id', 'in', ids).where(field, '=', userId).where(notErased(resource)).orderBy('_id'),
      unit.dialect,
      'update',
    ).execute()) as Row[];
    for (const row of rows) {
      const changes = erasureChanges(resource, rowToRecord(resource, unit.dialect, row));
      if (Object.keys(changes).length === 0) continue;
      await unit.update(resource, row, String(row.etag), changes, { action: 'erase', audit: { old: null, new: { erased_fields: Object.keys(changes).sort() } } });
    }
    // Every record's events and stored answers: a value the API later cleared is still in them.
    const depersonalise = (data: Record<string, unknown>) => ({ ...data, ...erasureChanges(resource, data) });
    await rewriteOutboxData(unit.trx, unit.dialect, resource.name, ids, depersonalise);
    await answers.rewriteAnswers(unit.trx, resource.name, ids, depersonalise);
  }
  // Records that once named no user were sealed under their own subject.
  await destroySubjectKeys(
    unit.trx,
    unit.dialect,
    ids.map((id) => `${resource.name}/${id}`),
    unit.now,
  );
  service.voidCounts(unit, [resource.name]);
  return ids[ids.length - 1] ?? null;
}

/**
 * The ids of one batch, wherever the records live (erasure reaches every record naming the
 * user, soft-deleted ones too): a range of the relation's subject index (`src/db/schema.ts`),
 * not a scan of the table while the batch holds SQLite's writer.
 */
export function batchQuery(system: ScopedQueries, { resource, field }: Relation, userId: string, page: { after: string; size: number; leftOnly: boolean }) {
  let select = system.scoped(resource, { includeDeleted: true }).select('_id').where(field, '=', userId).where('_id', '>', page.after);
  if (page.leftOnly) select = select.where(notErased(resource));
  return select.orderBy('_id').limit(page.size);
}

/** Step 3: the user erased for good, or null while a record naming it is not erased yet. */
async function finish(service: ResourceService, unit: UnitOfWork, answers: StoredAnswers, userId: string, relations: readonly Relation[], begun: readonly string[]): Promise<ErasureResult | null> {
  const user = await lockedUser(unit, userId);
  for (const { resource, field } of relations) {
    if (!hasPersonalFields(resource)) continue;
    const left = await unit.asSystem().scoped(resource, { includeDeleted: true }).select('_id').where(field, '=', userId).where(notErased(resource)).limit(1).executeTakeFirst();
    if (left) return null;
  }
  // Every record is erased, wherever it lives; the answer counts only what the caller reaches
  // (a count of another tenant's records would tell it what it may not read).
  const records: Record<string, number> = {};
  for (const { resource, field } of relations) records[resource.name] = (records[resource.name] ?? 0) + (await inReach(unit, resource, field, userId));
  const current = rowToRecord(users, unit.dialect, user);
  const erasedAt = typeof current.erased_at === 'string' ? current.erased_at : unit.at;
  // A write that gave the user a personal value again since step 1 is erased too.
  const changes: Record<string, unknown> = erasureChanges(users, current);
  const fields = [...new Set([...begun, ...Object.keys(changes)])].sort();
  if (current.status !== 'disabled') changes.status = 'disabled';
  if (current.erased_at === null || current.erased_at === undefined) changes.erased_at = erasedAt;
  if (Object.keys(changes).length > 0) {
    await unit.update(users, user, String(user.etag), changes, { action: 'erase', event: 'users.erased', audit: { old: null, new: { erased_at: erasedAt, erased_fields: fields, records } } });
    await unit.invalidate('user', userId);
  }
  await userTraces(unit, answers, userId);
  service.voidCounts(unit, [users.name, ...relations.map((r) => r.resource.name)]);
  return { user_id: userId, erased_at: erasedAt, records };
}

/** The user, soft-deleted too (its stored row still holds personal data), locked for the transaction. */
async function lockedUser(unit: UnitOfWork, userId: string): Promise<Row> {
  const user = (await withRowLock(unit.scoped(users, { includeDeleted: true }).selectAll().where('_id', '=', userId), unit.dialect, 'update').executeTakeFirst()) as Row | undefined;
  if (!user) throw notFound(users.name);
  return user;
}

/** The user's events and stored answers without personal values, and its data keys destroyed. */
async function userTraces(unit: UnitOfWork, answers: StoredAnswers, userId: string): Promise<void> {
  const depersonalise = (data: Record<string, unknown>) => ({ ...data, ...erasureChanges(users, data) });
  await rewriteOutboxData(unit.trx, unit.dialect, users.name, [userId], depersonalise);
  await answers.rewriteAnswers(unit.trx, users.name, [userId], depersonalise);
  await destroySubjectKeys(unit.trx, unit.dialect, [userId], unit.now);
}

/** How many records of `resource` naming the user the unit's caller reaches (soft-deleted ones too, as erasure does). */
async function inReach(unit: UnitOfWork, resource: ResourceDef, field: string, userId: string): Promise<number> {
  const row = await unit
    .scoped(resource, { includeDeleted: true })
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where(field, '=', userId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * Active holds on the user or on any record that references the user, in every tenant (a
 * hold binds whoever asks): one query, the referencing records as subqueries, so a user with
 * many records is checked without reading their ids.
 */
async function holdsOnUser(unit: UnitOfWork, userId: string, relations: readonly Relation[]): Promise<string[]> {
  const system = unit.asSystem();
  const rows = await system
    .scoped(legalHolds, { as: 'h' })
    .select('h._id as _id')
    .where(activeAt(unit, unit.now, 'h'))
    .where((eb) =>
      eb.or([
        eb.and([eb('h.resource', '=', users.name), eb('h.record_id', '=', userId)]),
        ...relations.map(({ resource, field }) =>
          eb.and([eb('h.resource', '=', resource.name), eb('h.record_id', 'in', system.scoped(resource, { includeDeleted: true, as: 'r' }).select('r._id').where(`r.${field}`, '=', userId))]),
        ),
      ]),
    )
    .execute();
  return [...new Set(rows.map((row) => String(row._id)))].sort();
}
