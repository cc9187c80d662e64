import { sql } from 'kysely';
import type { Database } from '../db/dialect.js';
import { ScopedQueries } from '../data/scoped-queries.js';
import { DirectoryCache, plausibleId } from '../lib/directory-cache.js';
import { getResource } from '../registry/index.js';
import { isRole } from '../actions/roles.js';
import type { Role } from '../actions/roles.js';
import { asSystem } from '../core/principal.js';

/** What the security pipeline needs to know about an end user behind a token. */
export interface UserState {
  readonly userId: string;
  readonly tenantId: string;
  readonly role: Role;
  /** Active, not disabled and not erased. */
  readonly active: boolean;
  readonly email: string | null;
  readonly phone: string | null;
  readonly locale: string;
  readonly totpEnabled: boolean;
}

const users = getResource('users');

/**
 * Users by id, for authentication and sign-in; cached briefly like API clients and
 * dropped on every committed change (the change feed reaches every instance).
 */
export class UserDirectory {
  private readonly cache: DirectoryCache<UserState>;
  private readonly queries: ScopedQueries;

  constructor(database: Database, ttlMs = 5_000, now: () => number = Date.now) {
    this.cache = new DirectoryCache(ttlMs, now);
    this.queries = new ScopedQueries(database.db, database.dialect, asSystem());
  }

  async get(userId: string): Promise<UserState | undefined> {
    if (typeof userId !== 'string' || !plausibleId.test(userId)) return undefined;
    return this.cache.get(userId, async (id) => {
      const row = await this.queries.scoped(users).selectAll().where('_id', '=', id).executeTakeFirst();
      return row ? toState(row, this.queries.dialect.fromDb('boolean', row.totp_enabled) === true) : undefined;
    });
  }

  /** {@link get} without a promise while this directory holds the user fresh. */
  lookup(userId: string): UserState | undefined | Promise<UserState | undefined> {
    return this.cache.peek(userId) ?? this.get(userId);
  }

  /** The live users of a tenant with this e-mail address or phone number (case-insensitive e-mail). */
  async findByDestination(tenantId: string, channel: 'email' | 'sms', destination: string): Promise<UserState | undefined> {
    // E-mail addresses are matched without regard to case (`destination` arrives lower-cased).
    const match = channel === 'email' ? sql<boolean>`${this.queries.dialect.lowerCase(sql.ref('email'))} = ${destination}` : sql<boolean>`phone = ${destination}`;
    const rows = await this.queries.scoped(users).selectAll().where('tenant_id', '=', tenantId).where(match).limit(2).execute();
    if (rows.length !== 1 || !rows[0]) return undefined;
    const row = rows[0];
    return toState(row, this.queries.dialect.fromDb('boolean', row.totp_enabled) === true);
  }

  forget(userId: string): void {
    this.cache.forget(userId);
  }

  /** Drops every cached entry (the change feed may have missed changes). */
  clear(): void {
    this.cache.clear();
  }
}

function toState(row: Record<string, unknown>, totpEnabled: boolean): UserState {
  const role = isRole(row.role) ? row.role : 'guest';
  return {
    userId: String(row._id),
    tenantId: String(row.tenant_id),
    role,
    active: row.status === 'active' && (row.erased_at === null || row.erased_at === undefined),
    email: (row.email as string | null) ?? null,
    phone: (row.phone as string | null) ?? null,
    locale: typeof row.locale === 'string' ? row.locale : 'en',
    totpEnabled,
  };
}
