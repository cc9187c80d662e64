import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../../src/registry/index.js';
import { asSystem } from '../../../src/core/principal.js';
import { adminBundle } from '../../support/admin-bundle.js';
import { launchChromium } from '../../support/browser.js';
import { checkAndShoot, screenshotDir, signInToConsole } from '../../support/console-session.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startSmtp } from '../../support/mail-and-sms.js';
import { signInByEmail } from '../../support/user-sign-in.js';

const adminEmail = 'products-admin@example.test';
const usersAdminEmail = 'users-admin@example.test';
const otpOnlyAdminEmail = 'otp-only-admin@example.test';
const newUserEmail = 'new-staff@example.test';
const lostPhoneEmail = 'lost-phone@example.test';

/** `YYYY-MM-DD` of today (UTC, the products' default time zone) plus `days`. */
function day(days: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** The occupancy table's cells for one day: booked, available, capacity. */
async function occupancyOf(page: Page, date: string): Promise<string[]> {
  const row = page
    .getByRole('table', { name: /^Occupancy of Harbour Loft/ })
    .getByRole('row')
    .filter({ has: page.locator(`time[datetime="${date}"]`) });
  return row.getByRole('cell').allTextContents();
}

describe('administration console in Chromium: Products (occupancy, cancel a booking) and Users', () => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let tenant: string;
  let apiToken: string;
  let address: string | undefined;
  const shots = screenshotDir();
  const bookings: Record<string, string> = {};

  async function api(method: string, url: string, body?: unknown) {
    const response = await h.request({ method, url, token: apiToken, ...(body === undefined ? {} : { body }) });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return response.json() as Record<string, unknown>;
  }

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness('sqlite', { adminDir: await adminBundle(), env: { SMTP_URL: smtp.url } });
    tenant = await h.tenant('Console products');
    const scope = { nodeId: tenant, level: 'tenant' as const, path: `/${tenant}/` };
    for (const email of [adminEmail, usersAdminEmail, otpOnlyAdminEmail])
      await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), { email, role: 'admin' });
    await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), { email: lostPhoneEmail, role: 'staff' });
    apiToken = await h.bearer(tenant, [...crud('products'), ...crud('bookings'), 'users:list', 'users:read', 'users:read:email', 'audit-logs:list']);
    // Two products through the API; the loft gets bookings over the next days (UTC).
    const loft = await api('POST', '/v1/products', { name: 'Harbour Loft', address: 'Kai 1', city: 'Hamburg', zip_code: '20457', total_items: 4 });
    await api('POST', '/v1/products', { name: 'Atelier', address: 'Hof 2', city: 'Berlin', zip_code: '10115', total_items: 2 });
    const book = async (reference: string, start: string, end: string, quantity: number) => {
      bookings[reference] = String((await api('POST', '/v1/bookings', { product_id: loft._id, start_time: start, end_time: end, quantity, reference }))._id);
    };
    await book('B-A', `${day(1)}T10:00:00Z`, `${day(1)}T12:00:00Z`, 2);
    await book('B-B', `${day(1)}T11:00:00Z`, `${day(1)}T13:00:00Z`, 1);
    await book('B-C', `${day(3)}T00:00:00Z`, `${day(5)}T00:00:00Z`, 1);
    await book('B-D', `${day(2)}T09:00:00Z`, `${day(2)}T17:00:00Z`, 4);
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  /** A signed-in console page for a first-time administrator; console errors are collected. */
  async function consolePage(email: string): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
    address ??= await h.app.server.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    await page.goto(`${address}/admin/`);
    await signInToConsole(page, smtp, tenant, email);
    return { page, problems, close: () => browser.close() };
  }
  /** The signed-in administrator's user id (the audit trail's actor). */
  async function userId(email: string): Promise<string | undefined> {
    return ((await api('GET', '/v1/users?role=admin')).items as { _id: string; email: string }[]).find((u) => u.email === email)?._id;
  }

  it("charts a product's occupancy with a table alternative and cancels a booking", async () => {
    const { page, problems, close } = await consolePage(adminEmail);
    try {
      // Products: the list, then the loft's 30 days.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products' }).click();
      await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Atelier' }).waitFor();
      await page.getByRole('button', { name: 'Harbour Loft' }).click();
      await expect.poll(() => page.evaluate<string>('document.activeElement.textContent')).toBe('Harbour Loft');
      const chart = page.getByRole('img', { name: /^Units booked per day/ });
      // The chart, or the page's error notice if the availability endpoint refused.
      await chart.or(page.getByRole('alert')).first().waitFor();
      expect(await page.getByRole('alert').allTextContents()).toEqual([]);
      expect(await chart.getAttribute('aria-describedby')).toBe('occupancy-summary');
      expect(await page.locator('#occupancy-summary').textContent()).toMatch(
        new RegExp(`^Peak: 4 of 4 units booked on \\w{3} ${day(2)}\\. 4 of 30 days have bookings\\. Fully booked: \\w{3} ${day(2)}\\.$`),
      );
      expect(await chart.locator('text.axis-title').allTextContents()).toEqual(['Day', 'Units booked']);

      // The table alternative: the same numbers, one row per day.
      await page.getByText('Occupancy as a table').click();
      const table = page.getByRole('table', { name: /^Occupancy of Harbour Loft/ });
      await table.waitFor();
      expect(await table.getByRole('row').count()).toBe(31);
      expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Day', 'Booked', 'Available', 'Capacity']);
      expect(await occupancyOf(page, day(0))).toEqual(['0', '4', '4']);
      expect(await occupancyOf(page, day(1))).toEqual(['3', '1', '4']);
      expect(await occupancyOf(page, day(2))).toEqual(['4', '0', '4']);
      expect(await occupancyOf(page, day(3))).toEqual(['1', '3', '4']);
      expect(await occupancyOf(page, day(4))).toEqual(['1', '3', '4']);
      expect(await occupancyOf(page, day(5))).toEqual(['0', '4', '4']);
      expect(await chart.locator('rect.bar').count()).toBe(30);

      // Bookings with their status; cancel one from the console.
      const bookingRows = page.getByRole('table', { name: 'Bookings of Harbour Loft' }).getByRole('row');
      await bookingRows.filter({ hasText: 'B-B' }).waitFor();
      expect(await bookingRows.count()).toBe(5);
      await checkAndShoot(page, shots, 'products');
      await bookingRows.filter({ hasText: 'B-B' }).getByRole('button', { name: 'Cancel booking' }).click();
      await page.getByText('Booking B-B cancelled.').waitFor();
      await expect.poll(() => bookingRows.filter({ hasText: 'B-B' }).getByRole('cell').nth(3).textContent()).toBe('Cancelled');
      expect(await bookingRows.filter({ hasText: 'B-B' }).getByRole('button', { name: 'Cancel booking' }).count()).toBe(0);
      await expect.poll(() => occupancyOf(page, day(1))).toEqual(['2', '2', '4']);

      // The API agrees, and the audit trail names the administrator.
      const cancelled = await api('GET', `/v1/bookings/${bookings['B-B']}`);
      expect(cancelled.status).toBe('cancelled');
      expect((await api('GET', `/v1/bookings/${bookings['B-A']}`)).status).toBe('active');
      const audit = (await api('GET', `/v1/audit-logs?resource=bookings&record_id=${bookings['B-B']}&action=update`)).items as {
        actor_type: string;
        actor_id: string;
        new_values: { status?: string };
      }[];
      expect(audit).toHaveLength(1);
      expect(audit[0]?.actor_type).toBe('user');
      expect(audit[0]?.new_values.status).toBe('cancelled');
      expect(audit[0]?.actor_id).toBe(await userId(adminEmail));
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 90_000);

  it('creates a staff user, makes them an admin and disables them, resets a lost TOTP, each change audited as the administrator; a one-factor token may not', async () => {
    // A staff user with TOTP on; the codes are read from the real clock (activation at now, step-up one step later).
    let shift = 0;
    await signInByEmail(h, smtp, tenant, lostPhoneEmail, { totp: true, now: () => Date.now() + shift, advance: (ms) => void (ms === 30_000 && (shift += ms)) });
    const { page, problems, close } = await consolePage(usersAdminEmail);
    try {
      // Users: create a staff user, make them an admin, disable them.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
      await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
      await page.getByRole('row', { name: new RegExp(`${usersAdminEmail} \\(you\\)`) }).waitFor();
      await page.getByRole('button', { name: 'New user' }).click();
      const dialog = page.getByRole('dialog', { name: 'New user' });
      await dialog.getByLabel('E-mail').fill(newUserEmail);
      await dialog.getByLabel('First name').fill('Nora');
      await dialog.getByLabel('Role').selectOption('staff');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await page.getByText(`${newUserEmail} created.`).waitFor();
      const row = page.getByRole('row', { name: new RegExp(newUserEmail) });
      const created = ((await api('GET', '/v1/users')).items as { _id: string; email: string; role: string; status: string }[]).find((u) => u.email === newUserEmail);
      expect(created).toMatchObject({ role: 'staff', status: 'active' });
      const userPath = `/v1/users/${created?._id}`;

      await row.getByLabel('Role').selectOption('admin');
      await row.getByRole('button', { name: 'Change role' }).click();
      await page.getByText(`${newUserEmail} is now admin.`).waitFor();
      expect((await api('GET', userPath)).role).toBe('admin');

      // A staff user who lost the authenticator: Reset TOTP, and the row shows TOTP off.
      const lostRow = page.getByRole('row', { name: new RegExp(lostPhoneEmail) });
      await lostRow.getByRole('button', { name: 'Reset TOTP' }).waitFor();
      await checkAndShoot(page, shots, 'users');
      await lostRow.getByRole('button', { name: 'Reset TOTP' }).click();
      await page.getByText(`TOTP of ${lostPhoneEmail} reset: they sign in with a one-time code and enrol again.`).waitFor();
      await expect.poll(() => lostRow.getByRole('cell').nth(2).textContent()).toBe('No');
      expect(await lostRow.getByRole('button', { name: 'Reset TOTP' }).count()).toBe(0);
      const lost = ((await api('GET', '/v1/users?role=staff')).items as { _id: string; email: string; totp_enabled: boolean }[]).find((u) => u.email === lostPhoneEmail);
      expect(lost?.totp_enabled).toBe(false);
      const resetAudit = (await api('GET', `/v1/audit-logs?record_id=${lost?._id}&action=totp_reset`)).items as { actor_type: string; actor_id: string }[];
      expect(resetAudit.map((entry) => [entry.actor_type, entry.actor_id])).toEqual([['user', await userId(usersAdminEmail)]]);

      await row.getByRole('button', { name: 'Disable' }).click();
      await page.getByText(`${newUserEmail} disabled.`).waitFor();
      await row.getByRole('button', { name: 'Enable' }).waitFor();
      expect((await api('GET', userPath)).status).toBe('disabled');
      const userAudit = (await api('GET', `/v1/audit-logs?resource=users&record_id=${created?._id}&sort=created_at`)).items as { action: string; actor_id: string }[];
      expect(userAudit.map((entry) => entry.action)).toEqual(['create', 'update', 'update']);
      expect(new Set(userAudit.map((entry) => entry.actor_id))).toEqual(new Set([await userId(usersAdminEmail)]));
      expect(problems).toEqual([]);

      // The same writes with an administrator's one-factor token: step-up demanded (RFC 9470), nothing changed.
      const otpOnly = await signInByEmail(h, smtp, tenant, otpOnlyAdminEmail, { advance: () => undefined, now: () => Date.now() });
      const etag = String((await h.request({ method: 'GET', url: userPath, token: apiToken })).headers.etag);
      for (const [method, url, body, headers] of [
        ['POST', '/v1/users', { email: 'nope@example.test', role: 'staff' }, {}],
        ['PATCH', userPath, { role: 'staff' }, { 'if-match': etag }],
      ] as const) {
        const refused = await h.request({ method, url, token: otpOnly, body, headers });
        expect(refused.statusCode, `${method} ${url}`).toBe(401);
        expect(refused.json().code).toBe('mfa_required');
        expect(refused.headers['www-authenticate']).toContain('insufficient_user_authentication');
      }
      expect((await api('GET', userPath)).role).toBe('admin');
    } finally {
      await close();
    }
  }, 90_000);
});
