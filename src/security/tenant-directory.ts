import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { getResource } from '../registry/index.js';
import { asSystem, systemScope } from '../core/principal.js';
import type { Level, TenantScope } from '../core/principal.js';
import { DirectoryCache, plausibleId } from '../lib/directory-cache.js';

const tenants = getResource('tenants');

/**
 * Resolves tenant node ids to scopes, cached like clients and users (at most `ttlMs`; a
 * deleted node is dropped with {@link forget} when the change feed says so). Writes re-check
 * the node inside their transaction (see `checkReferences`), so a scope cached by another
 * instance cannot place records in a node deleted since.
 */
export class TenantDirectory {
  private readonly cache: DirectoryCache<TenantScope>;

  private readonly queries: ScopedQueries;

  constructor(database: Database, ttlMs = 5_000, now: () => number = Date.now) {
    this.cache = new DirectoryCache(ttlMs, now, 50_000);
    // A node lookup precedes any scope: it is how a scope is found.
    this.queries = new ScopedQueries(database.db, database.dialect, asSystem());
  }

  /** The scope of a node id (`null`/`system` → root); `undefined` when no live node has that id. */
  async resolve(nodeId: string | null): Promise<TenantScope | undefined> {
    if (nodeId === null || nodeId === 'system') return systemScope;
    if (!plausibleId.test(nodeId)) return undefined;
    return this.cache.get(nodeId, async (id) => {
      const row = await this.queries.scoped(tenants).select(['_id', 'level', 'path']).where('_id', '=', id).executeTakeFirst();
      return row && Object.freeze({ nodeId: id, level: row.level as Level, path: String(row.path) });
    });
  }

  /** {@link resolve} without a promise for the root and for a node already resolved (the common request). */
  lookup(nodeId: string | null): TenantScope | undefined | Promise<TenantScope | undefined> {
    if (nodeId === null || nodeId === 'system') return systemScope;
    return this.cache.peek(nodeId) ?? this.resolve(nodeId);
  }

  /** Drops a node (after it changed or its deletion committed). */
  forget(nodeId: string): void {
    this.cache.forget(nodeId);
  }

  /** Drops every cached node (the change feed may have missed changes). */
  clear(): void {
    this.cache.clear();
  }
}
