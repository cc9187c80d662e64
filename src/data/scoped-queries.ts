import type { SelectQueryBuilder } from 'kysely';
import type { Db, SqlDialect, Tables } from '../db/dialect.js';
import { withRowLock } from '../db/row-lock.js';
import type { ResourceDef } from '../registry/types.js';
import { asSystem } from '../security/principal.js';
import type { Principal } from '../security/principal.js';
import type { Row } from '../services/record-codec.js';
import { ownerFilter, tenantFilter } from './tenant-scope.js';

/** A select on one resource table with the scope's filters already applied. */
export type ScopedSelect = SelectQueryBuilder<Tables, string, object>;

export interface ScopeOptions {
  /** Soft-deleted rows too (legal holds preserve them; the trail of a deleted record). */
  readonly includeDeleted?: boolean;
  /** Table alias, for correlated subqueries. */
  readonly as?: string;
}

/**
 * The only way code outside `src/data` reads a resource table: every builder carries the
 * principal's tenant filter and the soft-delete filter, so a query that forgets them cannot
 * be written. Unscoped reads go through {@link asSystem}, which is greppable on purpose
 * (DESIGN.md rule 3). `test/unit/architecture/scoped-queries.test.ts` keeps it that way.
 */
export class ScopedQueries {
  constructor(
    protected readonly db: Db,
    readonly dialect: SqlDialect,
    readonly principal: Principal,
  ) {}

  /** `select … from <resource>` confined to the principal's tenants (a guest's: its own records) and to live rows. */
  scoped(resource: ResourceDef, options: ScopeOptions = {}): ScopedSelect {
    const alias = options.as;
    let query = (alias ? this.db.selectFrom(`${resource.table} as ${alias}`) : this.db.selectFrom(resource.table)) as ScopedSelect;
    const column = (name: string) => (alias ? `${alias}.${name}` : name);
    if (resource.softDelete && !options.includeDeleted) query = query.where(column('deleted_at'), 'is', null);
    const scoped = tenantFilter(resource, this.principal.scope, alias ?? resource.table);
    if (scoped) query = query.where(scoped);
    const owned = ownerFilter(resource, this.principal, alias ?? resource.table);
    if (owned) query = query.where(owned);
    return query;
  }

  /** A live record in reach, every column; optionally locked for the rest of the transaction. */
  async find(resource: ResourceDef, id: string, options: { lock?: 'update' | 'share' } = {}): Promise<Row | undefined> {
    let query = this.scoped(resource).selectAll().where('_id', '=', id);
    if (options.lock) query = withRowLock(query, this.dialect, options.lock);
    return (await query.executeTakeFirst()) as Row | undefined;
  }

  /**
   * The same queries without tenant scope (nor a guest's own-records filter), as the
   * `system` actor: for lookups that precede any scope (authentication) or must see every
   * tenant (cascade checks, background jobs).
   */
  asSystem(): ScopedQueries {
    return new ScopedQueries(this.db, this.dialect, asSystem());
  }
}
