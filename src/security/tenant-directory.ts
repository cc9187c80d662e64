import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { getResource } from '../registry/index.js';
import { asSystem, systemScope } from '../core/principal.js';
import type { Level, TenantScope } from '../core/principal.js';

const tenants = getResource('tenants');

/**
 * Resolves tenant node ids to scopes. A node's path never changes (its parent is immutable),
 * so resolved scopes are cached; a deleted node is dropped with {@link forget}. Writes
 * re-check the node inside their transaction (see `checkReferences`), so a scope cached by
 * another instance cannot place records in a node deleted since.
 */
export class TenantDirectory {
  private readonly cache = new Map<string, TenantScope>();
  /** Bumped by every {@link forget}: a lookup that raced a delete must not re-cache the node. */
  private generation = 0;

  private readonly queries: ScopedQueries;

  constructor(database: Database) {
    // A node lookup precedes any scope: it is how a scope is found.
    this.queries = new ScopedQueries(database.db, database.dialect, asSystem());
  }

  /** The scope of a node id (`null`/`system` → root); `undefined` when no live node has that id. */
  async resolve(nodeId: string | null): Promise<TenantScope | undefined> {
    if (nodeId === null || nodeId === 'system') return systemScope;
    const cached = this.cache.get(nodeId);
    if (cached) return cached;
    const generation = this.generation;
    const row = await this.queries.scoped(tenants).select(['_id', 'level', 'path']).where('_id', '=', nodeId).executeTakeFirst();
    if (!row) return undefined;
    const scope: TenantScope = Object.freeze({ nodeId, level: row.level as Level, path: String(row.path) });
    if (generation !== this.generation) return scope;
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(nodeId, scope);
    return scope;
  }

  /** {@link resolve} without a promise for the root and for a node already resolved (the common request). */
  lookup(nodeId: string | null): TenantScope | undefined | Promise<TenantScope | undefined> {
    if (nodeId === null || nodeId === 'system') return systemScope;
    return this.cache.get(nodeId) ?? this.resolve(nodeId);
  }

  /** Drops a node (after its deletion committed). */
  forget(nodeId: string): void {
    this.generation += 1;
    this.cache.delete(nodeId);
  }
}
