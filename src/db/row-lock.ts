import type { SelectQueryBuilder } from 'kysely';
import type { SqlDialect } from './dialect.js';

/**
 * Locks the selected rows until the transaction ends where the database has row locks
 * (PostgreSQL). SQLite needs none: it runs one write transaction at a time.
 * `update` guards a record about to change; `share` guards a parent a new child points to,
 * so a concurrent delete of the parent waits and then sees the child (cascade deny).
 */
export function withRowLock<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, dialect: SqlDialect, mode: 'update' | 'share'): SelectQueryBuilder<DB, TB, O> {
  if (!dialect.supportsRowLocks) return query;
  return mode === 'update' ? query.forUpdate() : query.forShare();
}
