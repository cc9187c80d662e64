import type { Database } from '../db/dialect.js';
import { systemScope } from './principal.js';
import type { Level, TenantScope } from './principal.js';

/**
 * Resolves tenant node ids to scopes. A node's path never changes (its parent is immutable),
 * so resolved scopes are cached; a deleted node is dropped with {@link forget}.
 */
export class TenantDirectory {
  private readonly cache = new Map<string, TenantScope>();

  constructor(private readonly database: Database) {}

  /** The scope of a node id (`null`/`system` → root); `undefined` when no live node has that id. */
  async resolve(nodeId: string | null): Promise<TenantScope | undefined> {
    if (nodeId === null || nodeId === 'system') return systemScope;
    const cached = this.cache.get(nodeId);
    if (cached) return cached;
    const row = await this.database.db
      .selectFrom('tenants')
      .select(['_id', 'level', 'path'])
      .where('_id', '=', nodeId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    const scope: TenantScope = Object.freeze({ nodeId, level: row.level as Level, path: String(row.path) });
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(nodeId, scope);
    return scope;
  }

  forget(nodeId: string): void {
    this.cache.delete(nodeId);
  }
}
