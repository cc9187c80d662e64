import type { Db } from './dialect.js';

/** What {@link readFirstNow} answers when the database cannot read right now without waiting. */
export const notNow: unique symbol = Symbol('not now');

/** Runs one SELECT at once and gives its first row, or {@link notNow}. */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => Record<string, unknown> | undefined | typeof notNow;

const readers = new WeakMap<Db, DirectRead>();

/**
 * Registers the synchronous reader of a Kysely instance. Only SQLite has one: its single
 * connection answers in-process, so a read that finds the connection idle can run without
 * the promise chain of Kysely's executor and connection mutex. The read bypasses Kysely's
 * plugins (their query and result transforms), so an instance with plugins is refused
 * here, at set-up, rather than answering differently from Kysely on some reads.
 */
export function registerDirectRead(db: Db, read: DirectRead): void {
  const plugins = db.getExecutor().plugins;
  if (plugins.length > 0) {
    throw new Error(`a direct reader cannot serve a Kysely instance with plugins (${plugins.map((p) => p.constructor.name).join(', ')}): its reads would skip their transforms`);
  }
  readers.set(db, read);
}

/**
 * The first row of a compiled SELECT, read at once where the database allows it (SQLite
 * with no transaction, query or stream holding the connection); {@link notNow} otherwise,
 * and the caller goes through Kysely. Only `ScopedQueries.find` reads this way. Never used
 * on a transaction: a unit of work reads through its own connection.
 */
export function readFirstNow(db: Db, sql: string, parameters: readonly unknown[]): Record<string, unknown> | undefined | typeof notNow {
  const read = db.isTransaction ? undefined : readers.get(db);
  return read ? read(sql, parameters) : notNow;
}
