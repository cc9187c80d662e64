import { rewriteOutboxData } from '../data/outbox.js';
import type { Db } from '../db/dialect.js';
import { withRowLock } from '../db/row-lock.js';
import { destroySubjectKeys } from '../data/subject-keys.js';
import type { UnitOfWork } from '../data/unit-of-work.js';
import { erasureChanges, hasPersonalFields } from '../derive/erasure.js';
import { notFound } from '../http/errors.js';
import { getResource, resources } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import { rowToRecord } from '../data/record-codec.js';
import type { Row } from '../data/record-codec.js';
import type { RequestContext } from '../core/request-context.js';
import type { ResourceService } from '../services/resource-service.js';
import { activeHolds, heldConflict } from '../services/legal-holds.js';

const users = getResource('users');

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

const batchSize = 500;

/** Rows of `resource` whose `field` names the user, soft-deleted ones too, in keyset batches. */
async function* referencing(unit: UnitOfWork, resource: ResourceDef, field: string, userId: string): AsyncGenerator<Row[]> {
  let after = '';
  for (;;) {
    const rows = (await unit.asSystem().scoped(resource, { includeDeleted: true }).selectAll().where(field, '=', userId).where('_id', '>', after).orderBy('_id').limit(batchSize).execute()) as Row[];
    if (rows.length === 0) return;
    yield rows;
    after = String(rows[rows.length - 1]?._id);
    if (rows.length < batchSize) return;
  }
}

/**
 * Erasure by depersonalisation, in one unit of work: every personal and special field of
 * the user and of every record that references the user (any resource whose registry entry
 * has a reference to users) is replaced by its erasure rule; the user is disabled and gets
 * `erased_at` (soft-deleted users too); the data keys sealing their values in the audit trail are destroyed; the
 * outbox and the stored answers of idempotent requests keep no personal value. A legal hold on the user or one of the records refuses
 * the whole erasure (409). Running it again changes nothing.
 */
export async function eraseUser(service: ResourceService, answers: StoredAnswers, context: RequestContext, userId: string): Promise<ErasureResult> {
  const result = await erase(service, answers, context, userId);
  // The committed erasure, out of the database's files too where the engine allows (SQLite's log).
  await service.purgeOverwritten();
  return result;
}

function erase(service: ResourceService, answers: StoredAnswers, context: RequestContext, userId: string): Promise<ErasureResult> {
  return service.work(context, async (unit) => {
    // A soft-deleted user still has personal data in storage: erasure reaches it too.
    const user = (await withRowLock(unit.scoped(users, { includeDeleted: true }).selectAll().where('_id', '=', userId), unit.dialect, 'update').executeTakeFirst()) as Row | undefined;
    if (!user) throw notFound(users.name);
    const current = rowToRecord(users, unit.dialect, user);
    // Erasing disables the user for good: only a caller that could give the user's role may
    // (the executor's and the user update's control check, `src/handlers/controlled-target.ts`).
    const relations = userRelations();
    const holds = await holdsOnUser(unit, userId, relations);
    if (holds.length > 0) throw heldConflict(holds, 'The user or a record referencing the user');

    const records: Record<string, number> = {};
    const subjects: string[] = [userId];
    for (const { resource, field } of relations) {
      const ids: string[] = [];
      for await (const batch of referencing(unit, resource, field, userId)) {
        for (const row of batch) {
          ids.push(String(row._id));
          const changes = erasureChanges(resource, rowToRecord(resource, unit.dialect, row));
          if (Object.keys(changes).length > 0) {
            await unit.update(resource, row, String(row.etag), changes, { action: 'erase', audit: { old: null, new: { erased_fields: Object.keys(changes).sort() } } });
          }
        }
      }
      // Every record is erased, wherever it lives; the answer counts only what the caller reaches
      // (a count of another tenant's records would tell it what it may not read).
      records[resource.name] = (records[resource.name] ?? 0) + (await reachable(unit, resource, ids));
      // Records that once named no user were sealed under their own subject.
      subjects.push(...ids.map((id) => `${resource.name}/${id}`));
      if (hasPersonalFields(resource)) {
        const depersonalise = (data: Record<string, unknown>) => ({ ...data, ...erasureChanges(resource, data) });
        await rewriteOutboxData(unit.trx, unit.dialect, resource.name, ids, depersonalise);
        await answers.rewriteAnswers(unit.trx, resource.name, ids, depersonalise);
      }
    }

    const erasedAt = typeof current.erased_at === 'string' ? current.erased_at : unit.at;
    const changes: Record<string, unknown> = { ...erasureChanges(users, current) };
    if (current.status !== 'disabled') changes.status = 'disabled';
    if (current.erased_at === null || current.erased_at === undefined) changes.erased_at = erasedAt;
    if (Object.keys(changes).length > 0) {
      await unit.update(users, user, String(user.etag), changes, {
        action: 'erase',
        event: 'users.erased',
        audit: {
          old: null,
          new: {
            erased_at: erasedAt,
            erased_fields: Object.keys(changes)
              .filter((k) => k !== 'status' && k !== 'erased_at')
              .sort(),
            records,
          },
        },
      });
      // The erased user's tokens stop working on every instance.
      await unit.invalidate('user', userId);
    }
    const depersonaliseUser = (data: Record<string, unknown>) => ({ ...data, ...erasureChanges(users, data) });
    await rewriteOutboxData(unit.trx, unit.dialect, users.name, [userId], depersonaliseUser);
    await answers.rewriteAnswers(unit.trx, users.name, [userId], depersonaliseUser);
    await destroySubjectKeys(unit.trx, unit.dialect, subjects, unit.now);
    service.voidCounts(unit, [users.name, ...relations.map((r) => r.resource.name)]);
    return { user_id: userId, erased_at: erasedAt, records };
  });
}

/** How many of `ids` the unit's caller reaches (soft-deleted ones too, as erasure does). */
async function reachable(unit: UnitOfWork, resource: ResourceDef, ids: readonly string[]): Promise<number> {
  let count = 0;
  for (let start = 0; start < ids.length; start += batchSize) {
    const rows = await unit
      .scoped(resource, { includeDeleted: true })
      .select('_id')
      .where('_id', 'in', ids.slice(start, start + batchSize))
      .execute();
    count += rows.length;
  }
  return count;
}

/** Active holds on the user or on any record that references the user. */
async function holdsOnUser(unit: UnitOfWork, userId: string, relations: readonly { resource: ResourceDef; field: string }[]): Promise<string[]> {
  const targets = [{ resource: users.name, id: userId }];
  for (const { resource, field } of relations) {
    for await (const batch of referencing(unit, resource, field, userId)) targets.push(...batch.map((row) => ({ resource: resource.name, id: String(row._id) })));
  }
  const holds: string[] = [];
  for (let start = 0; start < targets.length; start += 200) holds.push(...(await activeHolds(unit, unit.now, targets.slice(start, start + 200))));
  return [...new Set(holds)].sort();
}
