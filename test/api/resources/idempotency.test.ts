import { join } from 'node:path';
import { InsertQueryNode, sql } from 'kysely';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { IdempotencyKeys, purgeExpiredIdempotencyKeys, replayWindowMs } from '../../../src/http/idempotency.js';
import { DataKey } from '../../../src/security/data-key.js';
import { SigningKeyStore } from '../../../src/security/signing-keys.js';
import { clientKeyPair } from '../../support/keys.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

const product = (name: string) => ({ name, address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 2 });

describe.each(dialects)('Idempotency-Key on POST on %s', (dialect) => {
  let h: Harness;
  let token: string;
  let tenant: string;
  let client: Awaited<ReturnType<Harness['client']>>;

  beforeAll(async () => {
    h = await createHarness(dialect);
    tenant = await h.tenant('Idem');
    client = await h.client(tenant, [...crud('products'), 'api-clients:rotate-key']);
    token = await h.token(client);
  });
  afterAll(() => h.close());

  const post = (body: unknown, key: string | undefined, bearer = token, url = '/v1/products') =>
    h.request({ method: 'POST', url, token: bearer, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const count = async (name: string) =>
    Number(
      (
        await h.database.db
          .selectFrom('products')
          .select(sql<number>`count(*)`.as('n'))
          .where('name', '=', name)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const audits = async (name: string) => {
    const rows = await h.database.db.selectFrom('products').select('_id').where('name', '=', name).execute();
    let n = 0;
    for (const row of rows)
      n += Number(
        (
          await h.database.db
            .selectFrom('audit_logs')
            .select(sql<number>`count(*)`.as('n'))
            .where('record_id', '=', String(row._id))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return n;
  };

  it('a retried create replays the first answer and books once', async () => {
    const first = await post(product('retried'), 'key-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    const again = await post(product('retried'), 'key-1');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.location).toBe(first.headers.location);
    expect(await count('retried')).toBe(1);
    expect(await audits('retried')).toBe(1);
  });

  it('the same key with a different body is a 422; a malformed key a 400', async () => {
    expect((await post(product('original'), 'key-2')).statusCode).toBe(201);
    expectProblem(await post(product('changed'), 'key-2'), 422, 'idempotency_key_reused');
    expect(await count('changed')).toBe(0);
    expectProblem(await post(product('long'), 'k'.repeat(256)), 400, 'validation_failed');
    expectProblem(await post(product('ctl'), 'bad\u0001key'), 400, 'validation_failed');
  });

  it('two identical requests in parallel execute once', async () => {
    const answers = await Promise.all([post(product('parallel'), 'key-3'), post(product('parallel'), 'key-3'), post(product('parallel'), 'key-3')]);
    const statuses = answers.map((a) => a.statusCode);
    expect(
      statuses.every((s) => s === 201 || s === 409),
      statuses.join(),
    ).toBe(true);
    for (const refused of answers.filter((a) => a.statusCode === 409)) expect(refused.json().code).toBe('idempotency_key_in_use');
    expect(await count('parallel')).toBe(1);
    expect(await audits('parallel')).toBe(1);
    const ids = new Set(answers.filter((a) => a.statusCode === 201).map((a) => a.json()._id));
    expect(ids.size).toBe(1);
  });

  it('is scoped by client: another client with the same key and body creates its own record', async () => {
    const other = await h.bearer(tenant, crud('products'));
    const mine = await post(product('scoped'), 'key-4');
    const theirs = await post(product('scoped'), 'key-4', other);
    expect([mine.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(theirs.headers['idempotency-replayed']).toBeUndefined();
    expect(theirs.json()._id).not.toBe(mine.json()._id);
  });

  it('is one route however its path is spelt: a trailing slash or escaped id replays', async () => {
    const first = await post(product('spelt'), 'key-10', token, '/v1/products/');
    const again = await post(product('spelt'), 'key-10', token, '/v1/products');
    expect([first.statusCode, again.statusCode]).toEqual([201, 201]);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(await count('spelt')).toBe(1);
    const target = await h.client(tenant, ['products:list']);
    const body = { public_key: clientKeyPair().publicPem };
    const escaped = target.clientId.replace(/^./, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    expect((await post(body, 'key-11', token, `/v1/api-clients/${target.clientId}/keys`)).statusCode).toBe(201);
    expect((await post(body, 'key-11', token, `/v1/api-clients/${escaped}/keys/`)).headers['idempotency-replayed']).toBe('true');
  });

  it('stores no answer readable in the database: a shown-once secret is sealed', async () => {
    const created = await post(product('kept-out-of-sight'), 'key-12');
    const rows = await h.database.db.selectFrom('idempotency_keys').select('body').where('key', '=', 'key-12').execute();
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(h.database.dialect.fromDb('object', rows[0]?.body));
    expect(stored).not.toContain(String(created.json()._id));
    expect(stored).not.toContain('kept-out-of-sight');
    expect((await post(product('kept-out-of-sight'), 'key-12')).json()).toEqual(created.json());
  });

  it('a replay shows no field the token of the repeat may not read, as a read would', async () => {
    const sensitive = ['email', 'phone', 'date_of_birth'];
    const full = [...crud('users'), ...sensitive.map((field) => `users:read:${field}`), ...sensitive.map((field) => `users:write:${field}`)];
    const creator = await h.client(tenant, full);
    const body = { email: 'replayed@example.com', phone: '+4930123456', date_of_birth: '1990-01-02', first_name: 'Rea' };
    const send = async (scope: readonly string[]) => h.request({ method: 'POST', url: '/v1/users', token: await h.token(creator, scope.join(' ')), body, headers: { 'idempotency-key': 'key-13' } });
    const first = await send(full);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject(body);
    const narrow = await send(crud('users'));
    expect(narrow.headers['idempotency-replayed']).toBe('true');
    expect(narrow.json()).toEqual(Object.fromEntries(Object.entries(first.json() as Record<string, unknown>).filter(([field]) => !sensitive.includes(field))));
    const read = await h.request({ method: 'GET', url: `/v1/users/${String(first.json()._id)}`, token: await h.token(creator, crud('users').join(' ')) });
    expect(Object.keys(read.json()).filter((field) => sensitive.includes(field))).toEqual([]);
    expect((await send(full)).json()).toEqual(first.json());
  });

  it('a refused request leaves the key free for a corrected retry', async () => {
    expectProblem(await post({ name: 'incomplete' }, 'key-5'), 400, 'validation_failed');
    expect((await post(product('corrected'), 'key-5')).statusCode).toBe(201);
  });

  it('works for sub-operations: a replayed key rotation adds one key', async () => {
    const target = await h.client(tenant, ['products:list']);
    const body = { public_key: clientKeyPair().publicPem };
    const url = `/v1/api-clients/${target.clientId}/keys`;
    const first = await post(body, 'key-6', token, url);
    const again = await post(body, 'key-6', token, url);
    expect([first.statusCode, again.statusCode]).toEqual([201, 201]);
    expect(again.json()).toEqual(first.json());
    const keys = await h.database.db.selectFrom('api_client_keys').select('kid').where('client_id', '=', target.clientId).execute();
    expect(keys).toHaveLength(2);
  });

  it('forgets a key after 24 hours', async () => {
    let now = Date.now();
    const keys = new IdempotencyKeys(h.database, { now: () => now }, DataKey.open(h.config));
    const first = await keys.claim('scope-day', 'key-7', { a: 1 });
    expect(first.kind).toBe('run');
    if (first.kind === 'run') await first.complete({ status: 201, headers: {}, body: { id: 1 } });
    now += replayWindowMs - 1;
    expect((await keys.claim('scope-day', 'key-7', { a: 1 })).kind).toBe('replay');
    now += 2;
    expect((await keys.claim('scope-day', 'key-7', { a: 2 })).kind).toBe('run');
    expect(await purgeExpiredIdempotencyKeys(h.database, now + replayWindowMs + 200_000)).toBeGreaterThan(0);
  });

  it('a first request that crashed holds its key for the lease only', async () => {
    let now = Date.now();
    const keys = new IdempotencyKeys(h.database, { now: () => now }, DataKey.open(h.config));
    expect((await keys.claim('scope-crash', 'key-9', {})).kind).toBe('run');
    await expect(keys.claim('scope-crash', 'key-9', {})).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
    now += 120_001;
    expect((await keys.claim('scope-crash', 'key-9', {})).kind).toBe('run');
  });

  it('claims a key released between its claim and its read of the holder, instead of answering 409', async () => {
    const keys = new IdempotencyKeys(h.database, { now: () => Date.now() }, DataKey.open(h.config));
    // Another request holds the key…
    const other = await keys.claim('scope-released', 'key-10', { other: true });
    if (other.kind !== 'run') throw new Error('the first claim should run');
    // …and is refused (releasing it) just after this claim's insert found the key taken.
    const inserts = new Set<string>();
    let released: Promise<void> | undefined;
    const releaseAfterInsert: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'idempotency_keys') inserts.add(queryId.queryId);
        return node;
      },
      transformResult: async ({ queryId, result }) => {
        if (inserts.has(queryId.queryId) && !released) {
          released = other.release();
          // SQLite's one connection is still this insert's: the release queues right behind
          // it, ahead of the claim's next statement. A PostgreSQL pool runs it at once.
          if (dialect === 'postgres') await released;
        }
        return result;
      },
    };
    const racing = new IdempotencyKeys({ ...h.database, db: h.database.db.withPlugin(releaseAfterInsert) }, { now: () => Date.now() }, DataKey.open(h.config));
    const claim = await racing.claim('scope-released', 'key-10', { mine: true });
    await released;
    expect(inserts.size).toBeGreaterThan(1);
    // The key is free: the request runs, rather than being told another still holds it.
    expect(claim.kind).toBe('run');
  });

  it('is shared by every instance on the database', async () => {
    const keys = await SigningKeyStore.open({ file: join(h.config.dataDir, 'signing-keys.json') }, Math.floor(Date.now() / 1000));
    const second = await buildApp(h.config, { database: h.database, keys, logger: false });
    try {
      const first = await post(product('instances'), 'key-8');
      const viaSecond = await second.server.inject({
        method: 'POST',
        url: '/v1/products',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'key-8' },
        payload: JSON.stringify(product('instances')),
      });
      expect(viaSecond.statusCode).toBe(201);
      expect(viaSecond.headers['idempotency-replayed']).toBe('true');
      expect(viaSecond.json()._id).toBe(first.json()._id);
    } finally {
      await second.server.close();
    }
  });
});
