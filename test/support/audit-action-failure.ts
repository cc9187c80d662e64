import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { Database, DialectName } from '../../src/db/dialect.js';

/**
 * A trigger that makes inserting an audit entry fail when its `action` is listed in
 * `audit_action_failures`: it fails exactly the entry under test (e.g. `totp_activated`)
 * and not the other entries of the same transaction, so a test proves that this entry
 * shares its change's transaction. Statements per dialect; names fixed, values bound.
 */
const install: Record<DialectName, readonly RawBuilder<unknown>[]> = {
  sqlite: [
    sql`create table audit_action_failures (action text primary key)`,
    sql.raw(`create trigger fail_audit_action before insert on audit_logs
      when new.action in (select action from audit_action_failures)
      begin select raise(abort, 'injected audit failure'); end`),
  ],
  postgres: [
    sql`create table audit_action_failures (action text primary key)`,
    sql.raw(`create function fail_audit_action() returns trigger language plpgsql as $$
      begin
        if new.action in (select action from audit_action_failures) then
          raise exception 'injected audit failure';
        end if;
        return new;
      end $$`),
    sql`create trigger fail_audit_action before insert on audit_logs for each row execute function fail_audit_action()`,
  ],
};

/** Switches for the injected failure. */
export interface AuditActionFailure {
  /** Runs `fn` while audit entries with `action` fail; they succeed again afterwards. */
  during<T>(action: string, fn: () => Promise<T>): Promise<T>;
}

/** Installs the failing trigger into a harness's database. */
export async function installAuditActionFailure(database: Database): Promise<AuditActionFailure> {
  for (const statement of install[database.dialect.name]) await statement.execute(database.db);
  return {
    async during(action, fn) {
      await database.db.insertInto('audit_action_failures').values({ action }).execute();
      try {
        return await fn();
      } finally {
        await database.db.deleteFrom('audit_action_failures').execute();
      }
    },
  };
}
