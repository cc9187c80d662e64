import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOperatorServices } from '../../../cli/operator-services.js';
import type { DialectName } from '../../../src/db/dialect.js';
import { clientKeyPair } from '../../support/keys.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

const marker = 'outbox-fail-marker';

/** Makes the outbox insert fail (after the record and its audit entry were written) for marked data. */
const failOutbox: Record<DialectName, readonly RawBuilder<unknown>[]> = {
  sqlite: [sql.raw(`create trigger fail_outbox before insert on outbox_events when new.data like '%${marker}%' begin select raise(abort, 'injected outbox failure'); end`)],
  postgres: [
    sql.raw(
      `create function fail_outbox() returns trigger language plpgsql as $$ begin if new.data::text like '%${marker}%' then raise exception 'injected outbox failure'; end if; return new; end $$`,
    ),
    sql`create trigger fail_outbox before insert on outbox_events for each row execute function fail_outbox()`,
  ],
};

const verbs: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted', 'rotate-key': 'updated' };

describe.each(dialects)('one audit entry and one outbox event per committed change on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    token = await h.bearer(await h.tenant('Outbox'), [...crud('products'), 'api-clients:rotate-key', 'api-clients:create']);
    for (const statement of failOutbox[dialect]) await statement.execute(h.database.db);
  });
  afterAll(() => h.close());

  /** Audit entries and outbox events of a record, oldest first. */
  async function trail(recordId: string) {
    const audits = await h.database.db.selectFrom('audit_logs').select(['_id', 'action', 'resource']).where('record_id', '=', recordId).where('category', '=', 'data').orderBy('_id').execute();
    const events = await h.database.db.selectFrom('outbox_events').select(['_id', 'type', 'audit_id', 'resource']).where('record_id', '=', recordId).orderBy('_id').execute();
    return { audits, events };
  }

  function expectPaired(trailOf: Awaited<ReturnType<typeof trail>>, actions: readonly string[], resource: string): void {
    expect(trailOf.audits.map((a) => a.action)).toEqual(actions);
    expect(trailOf.events.map((e) => e.type)).toEqual(actions.map((a) => `${resource}.${verbs[a]}`));
    expect(trailOf.events.map((e) => e.audit_id)).toEqual(trailOf.audits.map((a) => a._id));
  }

  it('8 concurrent writers with injected failures: committed changes have exactly one of each, failed ones none', async () => {
    const committed = new Map<string, string[]>();
    let failures = 0;
    const writer = async (w: number) => {
      for (let i = 0; i < 6; i++) {
        const poisoned = (w + i) % 4 === 0;
        const body = { name: poisoned ? `w${w}-${i} ${marker}` : `w${w}-${i}`, address: 'a', city: 'c', zip_code: '1', total_items: 1 };
        const created = await h.request({ method: 'POST', url: '/v1/products', token, body });
        if (poisoned) {
          expect(created.statusCode, created.body).toBe(500);
          failures++;
          continue;
        }
        expect(created.statusCode, created.body).toBe(201);
        const id = String(created.json()._id);
        const actions = ['create'];
        committed.set(id, actions);
        const failUpdate = i % 3 === 1;
        const updated = await h.request({
          method: 'PATCH',
          url: `/v1/products/${id}`,
          token,
          body: { city: failUpdate ? marker : `city ${i}` },
          headers: { 'if-match': String(created.headers.etag) },
        });
        if (failUpdate) {
          expect(updated.statusCode, updated.body).toBe(500);
          failures++;
        } else {
          expect(updated.statusCode, updated.body).toBe(200);
          actions.push('update');
        }
        if (i % 2 === 0) {
          const etag = failUpdate ? String(created.headers.etag) : String(updated.headers.etag);
          const deleted = await h.request({ method: 'DELETE', url: `/v1/products/${id}`, token, headers: { 'if-match': etag } });
          expect(deleted.statusCode, deleted.body).toBe(204);
          actions.push('delete');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    expect(failures).toBeGreaterThan(8);
    expect(committed.size).toBeGreaterThan(20);
    for (const [id, actions] of committed) expectPaired(await trail(id), actions, 'products');
    // Nothing of a failed write survived: no marked record, entry or event.
    const marked = await h.database.db
      .selectFrom('products')
      .select('_id')
      .where((eb) => eb.or([eb('name', 'like', `%${marker}%`), eb('city', 'like', `%${marker}%`)]))
      .execute();
    expect(marked).toEqual([]);
    const events = await h.database.db
      .selectFrom('outbox_events')
      .select(sql<number>`count(*)`.as('n'))
      .where('resource', '=', 'products')
      .executeTakeFirstOrThrow();
    expect(Number(events.n)).toBe([...committed.values()].reduce((sum, actions) => sum + actions.length, 0));
  });

  it('a sub-operation (rotate-key) is one audit entry under its own name and one updated event', async () => {
    const client = await h.client(null, ['products:list']);
    const before = await trail(client.clientId);
    expectPaired(before, ['create'], 'api-clients');
    const response = await h.request({
      method: 'POST',
      url: `/v1/api-clients/${client.clientId}/keys`,
      token: await h.bearer(null, ['api-clients:rotate-key', 'products:list']),
      body: { public_key: clientKeyPair().publicPem },
    });
    expect(response.statusCode, response.body).toBe(201);
    expectPaired(await trail(client.clientId), ['create', 'rotate-key'], 'api-clients');
  });

  it('the CLI writes through the same unit of work', async () => {
    const services = await buildOperatorServices(h.config, h.database);
    const tenant = await services.createTenant({ name: 'From the CLI', level: 'partner', parent: undefined, currency: undefined });
    expectPaired(await trail(String(tenant._id)), ['create'], 'tenants');
  });
});
