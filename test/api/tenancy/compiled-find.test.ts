import { CamelCasePlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScopedQueries } from '../../../src/data/scoped-queries.js';
import { newId } from '../../../src/data/unit-of-work.js';
import { notNow, readFirstNow, registerDirectRead } from '../../../src/db/direct-read.js';
import { getResource } from '../../../src/registry/index.js';
import { asSystem } from '../../../src/core/principal.js';
import type { Principal } from '../../../src/core/principal.js';
import { TenantDirectory } from '../../../src/security/tenant-directory.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { productBody } from '../../support/resource-bodies.js';

const products = getResource('products');

/**
 * `ScopedQueries.find` compiles its query once per scope and reuses it with the next id:
 * the reused statement must still carry the scope's tenant filter and the soft-delete
 * filter, whatever was read before it.
 */
describe.each(dialects)('compiled finds keep the scope on %s', (dialect) => {
  let h: Harness;
  const node = { a: '', b: '', child: '' };
  const id = { a: '', b: '', child: '', deleted: '' };
  const principal = { a: undefined as unknown as Principal, b: undefined as unknown as Principal };

  beforeAll(async () => {
    h = await createHarness(dialect);
    node.a = await h.tenant('A', 'parent_tenant');
    node.child = await h.tenant('A child', 'tenant', node.a);
    node.b = await h.tenant('B', 'tenant');
    const create = async (tenant: string) => {
      const res = await h.request({ method: 'POST', url: '/v1/products', token: await h.bearer(tenant, crud('products')), body: productBody });
      return { id: String(res.json()._id) };
    };
    id.a = (await create(node.a)).id;
    id.child = (await create(node.child)).id;
    id.b = (await create(node.b)).id;
    const doomed = await h.request({ method: 'POST', url: '/v1/products', token: await h.bearer(node.a, crud('products')), body: productBody });
    id.deleted = String(doomed.json()._id);
    const tokenA = await h.bearer(node.a, crud('products'));
    expect((await h.request({ method: 'DELETE', url: `/v1/products/${id.deleted}`, token: tokenA, headers: { 'if-match': String(doomed.headers.etag) } })).statusCode).toBe(204);
    const directory = new TenantDirectory(h.database);
    const scope = async (tenant: string) => {
      const resolved = await directory.resolve(tenant);
      if (!resolved) throw new Error(`no tenant ${tenant}`);
      return Object.freeze({ ...asSystem(), unrestricted: false, home: resolved, scope: resolved });
    };
    principal.a = await scope(node.a);
    principal.b = await scope(node.b);
  });
  afterAll(() => h.close());

  const find = (who: Principal, recordId: string, lock?: 'update' | 'share') => new ScopedQueries(h.database.db, h.database.dialect, who).find(products, recordId, lock ? { lock } : {});

  it("reads the own and descendant records, then refuses another tenant's and a deleted one with the same compiled query", async () => {
    for (let round = 0; round < 2; round++) {
      expect((await find(principal.a, id.a))?._id).toBe(id.a);
      expect((await find(principal.a, id.child))?._id).toBe(id.child);
      expect(await find(principal.a, id.b)).toBeUndefined();
      expect(await find(principal.a, id.deleted)).toBeUndefined();
      expect((await find(principal.b, id.b))?._id).toBe(id.b);
      expect(await find(principal.b, id.a)).toBeUndefined();
      expect(await find(principal.b, id.child)).toBeUndefined();
    }
  });

  it("the system scope sees every tenant's live records but no deleted one; locked finds keep the filters too", async () => {
    const system = asSystem();
    for (const recordId of [id.a, id.b, id.child]) expect((await find(system, recordId))?._id).toBe(recordId);
    expect(await find(system, id.deleted)).toBeUndefined();
    expect(await find(principal.b, id.a, 'update')).toBeUndefined();
    expect((await find(principal.b, id.b, 'update'))?._id).toBe(id.b);
    expect(await find(principal.a, id.deleted, 'share')).toBeUndefined();
  });

  it("a read while another request's transaction is open never sees its uncommitted row (SQLite reads at once only when the connection is idle)", async () => {
    let written: (id: string) => void = () => undefined;
    const insertedId = new Promise<string>((resolve) => (written = resolve));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const context = { principal: principal.a, clientIp: null, requestId: null };
    const work = h.app.resources.work(context, async (unit) => {
      const recordId = newId(unit);
      await unit.insert(products, { id: recordId, owner: node.a, values: { ...productBody } });
      written(recordId);
      await gate;
      throw new Error('rolled back on purpose');
    });
    const recordId = await insertedId;
    const during = find(principal.a, recordId);
    release();
    await expect(work).rejects.toThrow('rolled back on purpose');
    expect(await during).toBeUndefined();
    expect(await find(principal.a, recordId)).toBeUndefined();
    expect((await find(principal.a, id.a))?._id).toBe(id.a);
  });

  it('the direct read inside find answers at once only where it may: an idle SQLite connection, never PostgreSQL nor while a transaction holds the connection', async () => {
    const compiled = new ScopedQueries(h.database.db, h.database.dialect, principal.a).scoped(products).selectAll().where('_id', '=', id.a).compile();
    const now = () => readFirstNow(h.database.db, compiled.sql, compiled.parameters);
    const sqlite = h.database.dialect.name === 'sqlite';
    if (sqlite) expect((now() as { _id?: unknown } | undefined)?._id).toBe(id.a);
    else expect(now()).toBe(notNow);
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const work = h.app.resources.work({ principal: principal.a, clientIp: null, requestId: null }, async (unit) => {
      await unit.find(products, id.a);
      entered();
      await gate;
    });
    await inside;
    expect(now()).toBe(notNow);
    // find still answers, through Kysely, once the transaction lets go of the connection.
    const waiting = find(principal.a, id.a);
    release();
    await work;
    expect((await waiting)?._id).toBe(id.a);
    if (sqlite) expect(now()).not.toBe(notNow);
  });

  it('a direct reader is refused at set-up for a Kysely instance with plugins (its reads would skip their transforms)', () => {
    const withPlugin = h.database.db.withPlugin(new CamelCasePlugin());
    expect(() => registerDirectRead(withPlugin, () => notNow)).toThrow(/cannot serve a Kysely instance with plugins \(CamelCasePlugin\)/);
    expect(readFirstNow(withPlugin, 'select 1', [])).toBe(notNow);
  });

  it("over HTTP: a tenant reading its own record first still gets 404 for another tenant's id", async () => {
    const token = await h.bearer(node.b, crud('products'));
    expect((await h.request({ method: 'GET', url: `/v1/products/${id.b}`, token })).statusCode).toBe(200);
    expect((await h.request({ method: 'GET', url: `/v1/products/${id.a}`, token })).statusCode).toBe(404);
    expect((await h.request({ method: 'GET', url: `/v1/products/${id.b}`, token })).json()._id).toBe(id.b);
  });

  it("a guest of the same scope neither uses nor leaves behind the scope's compiled find (its owner filter stays its own)", async () => {
    const users = getResource('users');
    const token = await h.bearer(node.a, [...crud('users'), 'users:write:email']);
    const [u1, u2] = await Promise.all(
      ['one', 'two'].map(async (name) => {
        const created = await h.request({ method: 'POST', url: '/v1/users', token, body: { email: `${name}@compiled.test` } });
        expect(created.statusCode, created.body).toBe(201);
        return String(created.json()._id);
      }),
    );
    const guest: Principal = Object.freeze({ ...principal.a, actorType: 'user', actorId: String(u2), ownRecordsOf: String(u2) });
    const findUser = (who: Principal, recordId: string) => new ScopedQueries(h.database.db, h.database.dialect, who).find(users, recordId);
    for (let round = 0; round < 2; round++) {
      expect((await findUser(principal.a, String(u1)))?._id).toBe(u1);
      expect(await findUser(guest, String(u1))).toBeUndefined();
      expect((await findUser(guest, String(u2)))?._id).toBe(u2);
      expect((await findUser(principal.a, String(u1)))?._id).toBe(u1);
    }
  });
});
