import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { Database, DialectName } from '../../src/db/dialect.js';

/** Text that makes an audit insert fail when it occurs in the entry's `new_values`. */
export const failureMarker = 'audit-fail-marker';

/**
 * A trigger that makes inserting an audit entry fail (after the record's own write, before
 * commit) when the entry is about a record listed in `audit_failures`, or its new values
 * contain {@link failureMarker}. Statements per dialect; names are fixed, values bound.
 */
const install: Record<DialectName, readonly RawBuilder<unknown>[]> = {
  sqlite: [
    sql`create table audit_failures (record_id text primary key)`,
    sql.raw(`create trigger fail_audit before insert on audit_logs
      when new.record_id in (select record_id from audit_failures) or new.new_values like '%${failureMarker}%'
      begin select raise(abort, 'injected audit failure'); end`),
  ],
  postgres: [
    sql`create table audit_failures (record_id text primary key)`,
    sql.raw(`create function fail_audit() returns trigger language plpgsql as $$
      begin
        if new.record_id in (select record_id from audit_failures) or new.new_values::text like '%${failureMarker}%' then
          raise exception 'injected audit failure';
        end if;
        return new;
      end $$`),
    sql`create trigger fail_audit before insert on audit_logs for each row execute function fail_audit()`,
  ],
};

/** Switches for the injected failure. */
export interface AuditFailure {
  /** Audit entries about `recordId` fail from now on. */
  failFor(recordId: string): Promise<void>;
  /** They succeed again. */
  clear(): Promise<void>;
}

/** Installs the failing trigger into a harness's database. */
export async function installAuditFailure(database: Database): Promise<AuditFailure> {
  for (const statement of install[database.dialect.name]) await statement.execute(database.db);
  return {
    async failFor(recordId) {
      await database.db.insertInto('audit_failures').values({ record_id: recordId }).execute();
    },
    async clear() {
      await database.db.deleteFrom('audit_failures').execute();
    },
  };
}
