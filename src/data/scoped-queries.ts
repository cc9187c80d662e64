import { createQueryId } from 'kysely';
import type { RootOperationNode, SelectQueryBuilder } from 'kysely';
import type { Db, SqlDialect, Tables } from '../db/dialect.js';
import { notNow, readFirstNow } from '../db/direct-read.js';
import { withRowLock } from '../db/row-lock.js';
import type { ResourceDef } from '../registry/types.js';
import { asSystem } from '../core/principal.js';
import type { Principal, TenantScope } from '../core/principal.js';
import type { Row } from './record-codec.js';
import { ownerFilter, tenantFilter } from './tenant-scope.js';

/** A select on one resource table with the scope's filters already applied. */
export type ScopedSelect = SelectQueryBuilder<Tables, string, object>;

/**
 * A compiled `find` of one resource for one scope: its SQL and parameters with the record
 * id left as a hole. The scope's own values (tenant id, path prefix) are fixed, because
 * scopes are immutable and cached by the tenant directory.
 */
interface CompiledFind {
  readonly query: RootOperationNode;
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly idAt: number;
}

/** Per lock mode (`none` for a plain read); `null`: this find cannot be compiled. */
type CompiledByLock = { none?: CompiledFind | null; update?: CompiledFind | null; share?: CompiledFind | null };

/** Compiled finds by scope object, then dialect, resource and lock mode: object keys, so the hot lookup builds no string. */
const compiledFinds = new WeakMap<TenantScope, WeakMap<SqlDialect, WeakMap<ResourceDef, CompiledByLock>>>();

/** The value of `key` in `map`, made and kept on first use. */
function entry<K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/** The parameters of a compiled find with `id` in its hole. */
function withId(compiled: CompiledFind, id: string): unknown[] {
  const parameters = compiled.parameters.slice();
  parameters[compiled.idAt] = id;
  return parameters;
}

/** Stands in for the record id while a find is compiled; no caller can pass this object. */
const idMarker: unknown = Object.freeze({ marker: 'record id' });

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

  /**
   * The connection (or, in a unit of work, the transaction) these queries run on, for the
   * service's own tables that hold no tenant data (e.g. `product_booking_spans`). Resource
   * tables only through {@link scoped} (an architecture test checks).
   */
  get connection(): Db {
    return this.db;
  }

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
    const compiled = this.compiledFind(resource, options.lock);
    if (!compiled) return (await this.findQuery(resource, id, options.lock).executeTakeFirst()) as Row | undefined;
    const parameters = withId(compiled, id);
    const now = readFirstNow(this.db, compiled.sql, parameters);
    if (now !== notNow) return now;
    const { rows } = await this.db.executeQuery<Row>({ query: compiled.query, queryId: createQueryId(), sql: compiled.sql, parameters });
    return rows[0];
  }

  private findQuery(resource: ResourceDef, id: unknown, lock: 'update' | 'share' | undefined) {
    const query = this.scoped(resource).selectAll().where('_id', '=', id as string);
    return lock ? withRowLock(query, this.dialect, lock) : query;
  }

  /**
   * The scoped find, compiled once per scope, resource and lock mode (for principals
   * without an owner filter): reads by id are the most frequent query, and building and
   * compiling the same Kysely query for each costs more than SQLite takes to answer it.
   * The SQL is the scoped builder's own output (tenant and soft-delete filters included);
   * only the id changes between calls. `null` (build per call) if the id does not appear
   * exactly once among the parameters.
   */
  private compiledFind(resource: ResourceDef, lock: 'update' | 'share' | undefined): CompiledFind | null {
    // Compiled finds are shared by every principal of a scope; a guest's carries its own
    // owner filter, so it is built per call and never enters (or reads) that cache.
    if (this.principal.ownRecordsOf !== undefined) return null;
    const byDialect = entry(compiledFinds, this.principal.scope, () => new WeakMap());
    const byResource = entry(byDialect, this.dialect, () => new WeakMap());
    const byLock = entry(byResource, resource, (): CompiledByLock => ({}));
    const mode = lock ?? 'none';
    let compiled = byLock[mode];
    if (compiled === undefined) {
      const { query, sql, parameters } = this.findQuery(resource, idMarker, lock).compile();
      const idAt = parameters.indexOf(idMarker);
      compiled = idAt >= 0 && parameters.lastIndexOf(idMarker) === idAt ? { query, sql, parameters, idAt } : null;
      byLock[mode] = compiled;
    }
    return compiled;
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
