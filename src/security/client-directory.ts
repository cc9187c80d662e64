import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { DirectoryCache, plausibleId } from '../lib/directory-cache.js';
import { getResource } from '../registry/index.js';
import { asSystem } from '../core/principal.js';
import type { Level } from '../core/principal.js';
import { IpAllowlist } from '../lib/ip-allowlist.js';

/** What the security pipeline needs to know about an API client. */
export interface ClientState {
  readonly clientId: string;
  readonly tenantId: string | null;
  readonly level: Level;
  readonly capabilities: readonly string[];
  readonly disabled: boolean;
  readonly allowlist: IpAllowlist;
}

const apiClients = getResource('api-clients');

/**
 * API client lookups for authentication, cached briefly. A change to a client is announced
 * on the database's change feed (at once on this instance, through PostgreSQL NOTIFY on the
 * others), and the app drops the entry ({@link forget}); `ttlMs` bounds staleness where no
 * feed reaches (another process on the same SQLite file).
 */
export class ClientDirectory {
  private readonly cache: DirectoryCache<ClientState>;
  private readonly queries: ScopedQueries;

  constructor(database: Database, ttlMs = 5_000, now: () => number = Date.now) {
    this.cache = new DirectoryCache(ttlMs, now);
    this.queries = new ScopedQueries(database.db, database.dialect, asSystem());
  }

  /** A live client by id (unscoped: authentication precedes any tenant scope). */
  async get(clientId: string): Promise<ClientState | undefined> {
    if (typeof clientId !== 'string' || !plausibleId.test(clientId)) return undefined;
    return this.cache.get(clientId, (id) => this.load(id));
  }

  /** {@link get} without a promise while this directory holds the client fresh (the common request). */
  lookup(clientId: string): ClientState | undefined | Promise<ClientState | undefined> {
    return this.cache.peek(clientId) ?? this.get(clientId);
  }

  private async load(clientId: string): Promise<ClientState | undefined> {
    const { dialect } = this.queries;
    const row = await this.queries.scoped(apiClients).select(['_id', 'tenant_id', 'level', 'capabilities', 'disabled', 'ip_allowlist']).where('_id', '=', clientId).executeTakeFirst();
    return (
      row && {
        clientId,
        tenantId: (row.tenant_id as string | null) ?? null,
        level: row.level as Level,
        capabilities: dialect.fromDb('string_list', row.capabilities) as string[],
        disabled: dialect.fromDb('boolean', row.disabled) === true,
        allowlist: new IpAllowlist(dialect.fromDb('string_list', row.ip_allowlist) as string[]),
      }
    );
  }

  /** Drops a cached client after it changed. */
  forget(clientId: string): void {
    this.cache.forget(clientId);
  }

  /** Drops every cached entry (the change feed may have missed changes). */
  clear(): void {
    this.cache.clear();
  }
}
