import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowToRecord } from '../../../src/data/record-codec.js';
import type { Row } from '../../../src/data/record-codec.js';
import { getResource } from '../../../src/registry/index.js';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { contentHashEtag } from '../../support/content-hash-etag.js';

const fieldCaps = ['email', 'phone', 'date_of_birth'].flatMap((field) => [`users:read:${field}`, `users:write:${field}`]);
const email = 'grace.hopper@example.test';
const users = getResource('users');

describe.each(dialects)('the ETag confirms no hidden field on %s', (dialect) => {
  let h: Harness;
  let admin: string;
  /** `users:read` without any field capability: email, phone and date of birth stay hidden. */
  let noFields: string;
  let userId: string;

  beforeAll(async () => {
    h = await createHarness(dialect);
    const tenant = await h.tenant('T');
    admin = await h.bearer(tenant, [...crud('users'), ...fieldCaps]);
    noFields = await h.bearer(tenant, ['users:read']);
    const created = await h.request({ method: 'POST', url: '/v1/users', token: admin, body: { email, phone: '+15551234567', first_name: 'Grace', date_of_birth: '1906-12-09' } });
    expect(created.statusCode, created.body).toBe(201);
    userId = String(created.json()._id);
  });
  afterAll(() => h.close());

  const readAsNoFields = async () => {
    const read = await h.request({ method: 'GET', url: `/v1/users/${userId}`, token: noFields });
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).not.toHaveProperty('email');
    return String(read.headers.etag);
  };
  /** The full stored record: what a caller would rebuild from the visible fields plus a guess. */
  const storedRecord = async () => {
    const row = (await h.database.db.selectFrom('users').selectAll().where('_id', '=', userId).executeTakeFirstOrThrow()) as Row;
    const record = rowToRecord(users, h.database.dialect, row);
    expect(record.email).toBe(email);
    return record;
  };

  it('a created record: the right guess of the hidden email does not reproduce the ETag', async () => {
    const etag = await readAsNoFields();
    expect(etag).not.toBe(contentHashEtag(null, await storedRecord()));
  });

  it('an updated record: knowing the previous ETag does not help either', async () => {
    const previous = await readAsNoFields();
    const current = await h.request({ method: 'GET', url: `/v1/users/${userId}`, token: admin });
    expect(String(current.headers.etag)).toBe(previous);
    const patched = await h.request({ method: 'PATCH', url: `/v1/users/${userId}`, token: admin, headers: { 'if-match': previous }, body: { last_name: 'Hopper' } });
    expect(patched.statusCode, patched.body).toBe(200);
    const etag = await readAsNoFields();
    expect(etag).toBe(String(patched.headers.etag));
    expect(etag).not.toBe(previous);
    expect(etag).not.toBe(contentHashEtag(previous, await storedRecord()));
  });
});
