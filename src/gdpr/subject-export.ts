import type { ScopedQueries } from '../data/scoped-queries.js';
import { notFound } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import type { ApiRecord, Row } from '../data/record-codec.js';
import type { SqlDialect } from '../db/dialect.js';
import type { RequestContext } from '../core/request-context.js';
import type { ResourceService } from '../services/resource-service.js';
import { userRelations } from './erase-user.js';

const users = getResource('users');
const auditLogs = getResource('audit-logs');
const batchSize = 1000;

/** Rows of a select in `_id` keyset batches: flat memory, no connection held between them. */
async function* keyset(page: (after: string) => Promise<Row[]>): AsyncGenerator<Row[]> {
  let after = '';
  for (;;) {
    const rows = await page(after);
    if (rows.length === 0) return;
    yield rows;
    after = String(rows[rows.length - 1]?._id);
    if (rows.length < batchSize) return;
  }
}

/** The user's records of one referencing resource in the caller's reach, soft-deleted ones too (still held until purged). */
function recordsOf(queries: ScopedQueries, resource: ResourceDef, field: string, userId: string) {
  return keyset(
    async (after) => (await queries.scoped(resource, { includeDeleted: true }).selectAll().where(field, '=', userId).where('_id', '>', after).orderBy('_id').limit(batchSize).execute()) as Row[],
  );
}

/**
 * Records as the API shows them, each soft-deleted one with its `deleted_at` (an API read
 * has no such member: it shows no deleted record). `presented` is `rows` presented, in order.
 */
function asHeld(dialect: SqlDialect, rows: readonly Row[], presented: readonly ApiRecord[]): ApiRecord[] {
  return presented.map((record, index) => {
    const deletedAt = rows[index]?.deleted_at;
    return deletedAt === null || deletedAt === undefined ? record : { ...record, deleted_at: dialect.fromDb('timestamp', deletedAt) };
  });
}

/** Audit entries about the user and about every record that references the user. */
function auditOf(queries: ScopedQueries, relations: readonly { resource: ResourceDef; field: string }[], userId: string) {
  return keyset(
    async (after) =>
      (await queries
        .scoped(auditLogs, { as: 'a' })
        .selectAll('a')
        .where('a._id', '>', after)
        .where((eb) =>
          eb.or([
            eb.and([eb('a.resource', '=', users.name), eb('a.record_id', '=', userId)]),
            ...relations.map(({ resource, field }) =>
              eb.and([
                eb('a.resource', '=', resource.name),
                eb('a.record_id', 'in', queries.scoped(resource, { includeDeleted: true }).select(`${resource.table}._id`).where(`${resource.table}.${field}`, '=', userId)),
              ]),
            ),
          ]),
        )
        .orderBy('a._id')
        .limit(batchSize)
        .execute()) as Row[],
  );
}

/**
 * The subject export (GDPR Art. 15 and 20) as chunks of one JSON document:
 * `{ "user", "records": { "<resource>": [...] }, "audit": [...], "generated_at" }`. Every
 * resource that references users (registry) is a key of `records`. Presented like the API
 * shows them (sensitive fields need their read capability; sealed audit values opened).
 * The user is looked up before the first byte, so an unknown id is a clean 404. Soft-deleted
 * data is still held until purged, so it is exported too (Art. 15), each such record with
 * its `deleted_at`: the user and the records that reference the user.
 */
export async function subjectExport(service: ResourceService, context: RequestContext, userId: string): Promise<AsyncGenerator<string>> {
  const { principal } = context;
  const queries = service.queries(principal);
  const row = (await queries.scoped(users, { includeDeleted: true }).selectAll().where('_id', '=', userId).executeTakeFirst()) as Row | undefined;
  if (!row) throw notFound(users.name);
  const [user] = asHeld(queries.dialect, [row], await service.presentMany(users, principal, [row]));
  const relations = userRelations();
  return (async function* chunks(): AsyncGenerator<string> {
    yield `{"user":${JSON.stringify(user)},"records":{`;
    const names = [...new Set(relations.map((r) => r.resource.name))];
    for (const [index, name] of names.entries()) {
      yield `${index > 0 ? ',' : ''}${JSON.stringify(name)}:[`;
      let first = true;
      for (const { resource, field } of relations.filter((r) => r.resource.name === name)) {
        for await (const batch of recordsOf(queries, resource, field, userId)) {
          for (const chunk of present(asHeld(queries.dialect, batch, await service.presentMany(resource, principal, batch)), first)) yield chunk;
          first = false;
        }
      }
      yield ']';
    }
    yield '},"audit":[';
    let first = true;
    for await (const batch of auditOf(queries, relations, userId)) {
      for (const chunk of present(await service.presentMany(auditLogs, principal, batch), first)) yield chunk;
      first = false;
    }
    yield `],"generated_at":${JSON.stringify(new Date().toISOString())}}`;
  })();
}

/** Array members in chunks of 100 records: small strings stay in V8's young generation. */
function* present(records: readonly Record<string, unknown>[], first: boolean): Generator<string> {
  for (let start = 0; start < records.length; start += 100) {
    yield (
      (first && start === 0 ? '' : ',') +
      records
        .slice(start, start + 100)
        .map((r) => JSON.stringify(r))
        .join(',')
    );
  }
}
