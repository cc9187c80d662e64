import type { Compilable, SelectQueryBuilder } from 'kysely';
import type { Db, SqlDialect, Tables } from '../db/dialect.js';
import { notNow, readFirstNow } from '../db/direct-read.js';
import { withRowLock } from '../db/row-lock.js';
import type { ResourceDef, TypedResourceDef } from '../registry/types.js';
import { asSystem } from '../core/principal.js';
import type { Principal, TenantScope } from '../core/principal.js';
import { QueryTemplate } from './query-template.js';
import type { Row } from './record-codec.js';
import { ownerFilter, tenantFilter } from './tenant-scope.js';

/** A select on one resource table with the scope's filters already applied. */
export type ScopedSelect = SelectQueryBuilder<Tables, string, object>;

/** {@link ScopedSelect} of a resource whose row type is known: its columns are checked by `tsc`. */
export type TypedSelect<Table extends string, Row> = SelectQueryBuilder<Record<Table, Row>, Table, object>;

/**
 * A query whose shape is fixed and whose values change per call: `build` makes it for a
 * scope with `values` (already in the database's encoding) or, when it is being compiled
 * into a template, with holes in their place. The object itself keys the template cache.
 */
export interface QueryShape {
  /** How many values each call passes. */
  readonly values: number;
  build(queries: ScopedQueries, values: readonly unknown[]): Compilable;
}

/** Templates by scope object, then dialect and shape: object keys, so the hot lookup builds no string. `null`: build per call. */
const templates = new WeakMap<TenantScope, WeakMap<SqlDialect, WeakMap<QueryShape, QueryTemplate | null>>>();

/** The value of `key` in `map`, made and kept on first use. */
function entry<K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/** `find`'s query per lock mode (`none` for a plain read): the resource comes with the call. */
const findShapes = new WeakMap<ResourceDef, Record<'none' | 'update' | 'share', QueryShape>>();

function findShape(resource: ResourceDef, lock: 'update' | 'share' | undefined): QueryShape {
  const shapes = entry(findShapes, resource, () => {
    const shape = (mode: 'update' | 'share' | undefined): QueryShape => ({
      values: 1,
      build(queries, [id]) {
        const query = queries.scoped(resource).selectAll().where('_id', '=', id as string);
        return mode ? withRowLock(query, queries.dialect, mode) : query;
      },
    });
    return { none: shape(undefined), update: shape('update'), share: shape('share') };
  });
  return shapes[lock ?? 'none'];
}

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
 * (docs/architecture.md "Rules we keep"). `test/unit/architecture/scoped-queries.test.ts`
 * keeps it that way.
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
  scoped<Table extends string, Row>(resource: TypedResourceDef<Table, Row>, options?: ScopeOptions & { readonly as?: undefined }): TypedSelect<Table, Row>;
  scoped(resource: ResourceDef, options?: ScopeOptions): ScopedSelect;
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
  find<Table extends string, Stored>(resource: TypedResourceDef<Table, Stored>, id: string, options?: { lock?: 'update' | 'share' }): Promise<Stored | undefined>;
  find(resource: ResourceDef, id: string, options?: { lock?: 'update' | 'share' }): Promise<Row | undefined>;
  find(resource: ResourceDef, id: string, options: { lock?: 'update' | 'share' } = {}): Promise<Row | undefined> {
    return this.first(findShape(resource, options.lock), [id]);
  }

  /** The first row of `shape` with `values`; on SQLite's idle connection read at once (reads by id are the most frequent query). */
  async first(shape: QueryShape, values: readonly unknown[]): Promise<Row | undefined> {
    const template = this.template(shape);
    if (template) {
      const now = readFirstNow(this.db, template.sql, template.parameters(values));
      if (now !== notNow) return now;
    }
    return (await this.execute(shape, template, values))[0];
  }

  /** The rows of `shape` with `values`, from its template where it has one. */
  rows(shape: QueryShape, values: readonly unknown[]): Promise<Row[]> {
    return this.execute(shape, this.template(shape), values);
  }

  private async execute(shape: QueryShape, template: QueryTemplate | null, values: readonly unknown[]): Promise<Row[]> {
    const compiled = template ? template.compiled(values) : shape.build(this, values).compile();
    return (await this.db.executeQuery<Row>(compiled)).rows;
  }

  /**
   * `shape` compiled once per scope and dialect (for principals without an owner filter).
   * The scope's own values (tenant id, path prefix) are fixed in it: scopes are immutable
   * and cached by the tenant directory. A guest's query carries its own owner filter, so it
   * is built per call and never enters (or reads) the cache.
   */
  private template(shape: QueryShape): QueryTemplate | null {
    if (this.principal.ownRecordsOf !== undefined) return null;
    const byShape = entry(entry(templates, this.principal.scope, () => new WeakMap()), this.dialect, () => new WeakMap());
    let template = byShape.get(shape);
    if (template === undefined) byShape.set(shape, (template = QueryTemplate.compile(shape.values, (values) => shape.build(this, values))));
    return template;
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
