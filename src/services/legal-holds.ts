import type { ExpressionBuilder } from 'kysely';
import type { ScopedQueries } from '../data/scoped-queries.js';
import type { Tables } from '../db/dialect.js';
import { ApiError } from '../http/errors.js';
import { getResource } from '../registry/index.js';
import type { ResourceDef } from '../registry/types.js';
import type { Row } from '../data/record-codec.js';

const legalHolds = getResource('legal-holds');

/** A record a hold may name: directly, or through the user the record references. */
export interface HoldTarget {
  readonly resource: string;
  readonly id: string;
}

/**
 * Ids of the active holds (no `expires_at`, or one still ahead of `now`) on any of the
 * targets, in every tenant: a hold binds whoever asks, not only its owner's tenant.
 */
export async function activeHolds(queries: ScopedQueries, now: number, targets: readonly HoldTarget[], alias = 'h'): Promise<string[]> {
  if (targets.length === 0) return [];
  const rows = await queries
    .asSystem()
    .scoped(legalHolds, { as: alias })
    .select(`${alias}._id as _id`)
    .where(activeAt(queries, now, alias))
    .where((eb) => eb.or(targets.map((t) => eb.and([eb(`${alias}.resource`, '=', t.resource), eb(`${alias}.record_id`, '=', t.id)]))))
    .orderBy(`${alias}._id`)
    .execute();
  return rows.map((r) => String(r._id));
}

/** The "hold is active at `now`" condition on the holds table aliased `alias`. */
export function activeAt(queries: Pick<ScopedQueries, 'dialect'>, now: number, alias: string) {
  const at = queries.dialect.toDb('timestamp', new Date(now).toISOString());
  return (eb: ExpressionBuilder<Tables, string>) => eb.or([eb(`${alias}.expires_at`, 'is', null), eb(`${alias}.expires_at`, '>', at)]);
}

/** What a hold on a record covers: the record itself and the user it references. */
export function holdTargets(resource: ResourceDef, row: Row): HoldTarget[] {
  const targets: HoldTarget[] = [{ resource: resource.name, id: String(row._id) }];
  for (const name of resource.fieldNames) {
    const value = row[name];
    if (resource.fields[name]?.references === 'users' && typeof value === 'string') targets.push({ resource: 'users', id: value });
  }
  return targets;
}

/** The 409 a held record answers with, naming the holds. */
export function heldConflict(holds: readonly string[], what: string): ApiError {
  return new ApiError('legal_hold', `${what} is under legal hold (${holds.join(', ')}); release or let the hold expire first.`, { extensions: { holds } });
}

/** Refuses (409) when an active hold covers the record. */
export async function assertNotHeld(queries: ScopedQueries, now: number, resource: ResourceDef, row: Row): Promise<void> {
  const holds = await activeHolds(queries, now, holdTargets(resource, row));
  if (holds.length > 0) throw heldConflict(holds, `This ${resource.name} record`);
}
