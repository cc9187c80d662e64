import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { createUserIn, signInByEmail } from '../../support/user-sign-in.js';

/** End users (guests) search the catalogue: only published products, as the booking rules let them book only those. */
describe.each(dialects)('availability for end users on %s', (dialect) => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let offset = 0;
  const now = () => Date.now() + offset;
  let guest: string;
  let client: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness(dialect, { clock: { now }, env: { SMTP_URL: smtp.url } });
    const tenant = await h.tenant('Shop', 'parent_tenant');
    client = await h.bearer(tenant, crud('products'));
    for (const [name, published] of [
      ['Shown', true],
      ['Hidden', false],
    ] as const) {
      const created = await h.request({
        method: 'POST',
        url: '/v1/products/',
        token: client,
        body: { name, address: 'A 1', city: 'Köln', zip_code: '50667', total_items: 1, is_published: published },
      });
      expect(created.statusCode).toBe(201);
    }
    await createUserIn(h, tenant, 'parent_tenant', { email: 'guest@users.test', role: 'guest' });
    guest = await signInByEmail(h, smtp, tenant, 'guest@users.test', { now, advance: (ms) => (offset += ms) });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  it('shows a guest only the published products; an API client sees both', async () => {
    const url = '/v1/availability?from=2030-01-01&to=2030-01-02&sort=name';
    const names = (body: { items: { name: string }[] }) => body.items.map((item) => item.name);
    const asGuest = await h.request({ method: 'GET', url, token: guest });
    expect(asGuest.statusCode, asGuest.body).toBe(200);
    expect(names(asGuest.json())).toEqual(['Shown']);
    expect(names((await h.request({ method: 'GET', url, token: client })).json())).toEqual(['Hidden', 'Shown']);
  });
});
