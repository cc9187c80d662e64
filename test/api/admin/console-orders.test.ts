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

const ordersAdminEmail = 'orders-admin@example.test';
const pricingAdminEmail = 'pricing-admin@example.test';

/** `YYYY-MM-DD` of today (UTC) plus `days`. */
function day(days: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** How the console names a record: the last 8 characters of its id. */
const short = (id: string) => `…${id.slice(-8)}`;

/** A stay of the product's nights `day(first)` … `day(last - 1)` (Europe/Berlin: 16:00 to 11:00 local). */
const stay = (first: number, last: number) => ({ start_time: `${day(first)}T14:00:00Z`, end_time: `${day(last)}T09:00:00Z` });

describe('administration console in Chromium: Orders (hold countdown, lines, confirm, cancel) and the product page’s price and rates', () => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let tenant: string;
  let apiToken: string;
  let address: string | undefined;
  let productId: string;
  const shots = screenshotDir();
  /** The orders by role in the test: id and booking id. */
  const orders: Record<'confirm' | 'cancel' | 'paid' | 'short' | 'gone' | 'refuse', { id: string; booking: string }> = {} as never;

  async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await h.request({ method, url, token: apiToken, headers, ...(body === undefined ? {} : { body }) });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return { body: (response.statusCode === 204 ? {} : response.json()) as Record<string, unknown>, etag: String(response.headers.etag ?? '') };
  }
  const read = async (url: string) => (await api('GET', url)).body;

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness('sqlite', { adminDir: await adminBundle(), env: { SMTP_URL: smtp.url } });
    tenant = await h.tenant('Console orders');
    const scope = { nodeId: tenant, level: 'tenant' as const, path: `/${tenant}/` };
    for (const email of [ordersAdminEmail, pricingAdminEmail])
      await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), { email, role: 'admin' });
    apiToken = await h.bearer(tenant, [
      ...crud('products'),
      ...crud('orders'),
      ...crud('bookings'),
      ...crud('service-charges'),
      'orders:confirm',
      'users:list',
      'users:read',
      'users:read:email',
      'audit-logs:list',
    ]);
    // A priced product (per night, Berlin), a rate at a higher price with a minimum stay, a
    // restriction-only rate, and a cleaning charge per order.
    productId = String(
      (
        await api('POST', '/v1/products', {
          name: 'Harbour Loft',
          address: 'Kai 1',
          city: 'Hamburg',
          zip_code: '20457',
          total_items: 3,
          price: 120,
          price_unit: 'night',
          currency: 'EUR',
          time_zone: 'Europe/Berlin',
        })
      ).body._id,
    );
    await api('POST', `/v1/products/${productId}/rates`, { from: day(10), to: day(13), price: 150, min_stay: 2 });
    await api('POST', `/v1/products/${productId}/rates`, { from: day(25), to: day(27), closed_to_arrival: true });
    await api('POST', '/v1/service-charges', { product_id: productId, name: 'Cleaning', amount: 25, basis: 'per_order' });
    const order = async (key: keyof typeof orders, first: number, last: number, extra: Record<string, unknown> = {}) => {
      const created = (await api('POST', '/v1/orders', { product_id: productId, ...stay(first, last), ...extra })).body;
      orders[key] = { id: String(created._id), booking: String(created.booking_id) };
    };
    await order('paid', 6, 7);
    await order('gone', 22, 23);
    await order('short', 20, 21, { hold_seconds: 60 });
    await order('refuse', 14, 15);
    await order('cancel', 10, 12);
    await order('confirm', 3, 5);
    // One paid elsewhere and confirmed, one cancelled, both through the API.
    await api('POST', `/v1/orders/${orders.paid.id}/confirm`, undefined, { 'if-match': (await api('GET', `/v1/orders/${orders.paid.id}`)).etag });
    await api('PATCH', `/v1/orders/${orders.gone.id}`, { status: 'cancelled' }, { 'if-match': (await api('GET', `/v1/orders/${orders.gone.id}`)).etag });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  /** A signed-in console page, its clock under the test's control (it runs on its own until told to jump). */
  async function consolePage(email: string): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
    address ??= await h.app.server.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    await page.clock.install();
    await page.goto(`${address}/admin/`);
    await signInToConsole(page, smtp, tenant, email);
    return { page, problems, close: () => browser.close() };
  }
  /** The signed-in administrator's user id (the audit trail's actor). */
  async function userId(email: string): Promise<string | undefined> {
    return ((await read('/v1/users?role=admin')).items as { _id: string; email: string }[]).find((u) => u.email === email)?._id;
  }
  /** What the browser reports for a refusal the test provokes on purpose (the page shows it; tested). */
  const expectedRefusal = 'Failed to load resource: the server responded with a status of 409 (Conflict)';
  /** The text of every cell of a row, row header first. */
  const cells = (row: ReturnType<Page['getByRole']>) => row.locator('th, td').allTextContents();

  it('lists orders with status, total, the hold counting down and the booking; filters by status; confirms and cancels with the API; shows refusals', async () => {
    const { page, problems, close } = await consolePage(ordersAdminEmail);
    try {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
      await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
      const table = page.getByRole('table', { name: 'Orders of this tenant, newest first' });
      const rowOf = (key: keyof typeof orders) => table.getByRole('row').filter({ hasText: short(orders[key].id) });
      await rowOf('paid').getByRole('cell').first().waitFor();
      expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Order', 'Product', 'Stay', 'Status', 'Total', 'Created', 'Hold', 'Booking']);
      await expect.poll(() => table.getByRole('row').count()).toBe(7);
      // Newest first; the product's name once it has been read.
      expect(await table.getByRole('rowheader').allTextContents()).toEqual(['confirm', 'cancel', 'refuse', 'short', 'gone', 'paid'].map((key) => short(orders[key as keyof typeof orders].id)));
      await expect.poll(async () => (await cells(rowOf('confirm')))[1]).toBe('Harbour Loft');
      const confirmRow = await cells(rowOf('confirm'));
      expect(confirmRow[3]).toBe('Active');
      expect(confirmRow[4]).toBe('€265.00');
      expect(confirmRow[6]).toMatch(/^1[0-4] min \d{1,2} s left$/);
      expect(confirmRow[7]).toBe(short(orders.confirm.booking));
      expect((await cells(rowOf('cancel')))[4]).toBe('€325.00');
      expect((await cells(rowOf('paid'))).slice(3)).toEqual(['Confirmed', '€145.00', expect.any(String), '—', short(orders.paid.booking)]);
      expect((await cells(rowOf('gone')))[3]).toBe('Cancelled');
      // Each navigation link's name matches one element here too (Playwright's default role matching).
      for (const name of ['Settings', 'Products', 'Orders', 'Users', 'Audit log', 'Security']) expect(await page.getByRole('link', { name }).count(), name).toBe(1);

      // The holds count down in the browser: two minutes on, the 60-second hold reads expired, the others less.
      const minutesLeft = async () => Number(/^(\d+) min/.exec((await cells(rowOf('confirm')))[6] ?? '')?.[1]);
      const before = await minutesLeft();
      await page.clock.fastForward(120_000);
      await expect.poll(async () => (await cells(rowOf('short')))[6]).toBe('expired');
      await expect.poll(minutesLeft).toBeLessThanOrEqual(before - 2);

      // Filter by status.
      await page.getByLabel('Status').selectOption('confirmed');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('1 confirmed order, newest first.').waitFor();
      expect(await table.getByRole('rowheader').allTextContents()).toEqual([short(orders.paid.id)]);
      await page.getByLabel('Status').selectOption('');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('6 orders, newest first.').waitFor();

      // One order: its lines and booking; Confirm order and Cancel order for a live hold.
      await rowOf('confirm')
        .getByRole('link', { name: `Order ${short(orders.confirm.id)}` })
        .click();
      const detail = page.getByRole('region', { name: `Order ${short(orders.confirm.id)}`, exact: true });
      await detail.getByRole('heading', { level: 2 }).waitFor();
      await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('order-title');
      const lines = detail.getByRole('table', { name: `Lines of order ${short(orders.confirm.id)}` });
      await lines.waitFor();
      const lineRows = await Promise.all((await lines.getByRole('row').all()).map(cells));
      expect(lineRows.slice(1)).toEqual([
        [expect.stringMatching(new RegExp(`^Night of \\w{3} ${day(3)}Rent, product price$`)), '€120.00', '1', '€120.00'],
        [expect.stringMatching(new RegExp(`^Night of \\w{3} ${day(4)}Rent, product price$`)), '€120.00', '1', '€120.00'],
        ['CleaningService charge, per order', '—', '—', '€25.00'],
        ['Total', '€265.00'],
      ]);
      await detail.getByText('Held', { exact: true }).waitFor();
      expect(await detail.getByRole('button', { name: 'Confirm order' }).count()).toBe(1);
      expect(await detail.getByRole('button', { name: 'Cancel order' }).count()).toBe(1);
      await checkAndShoot(page, shots, 'orders');

      await detail.getByRole('button', { name: 'Confirm order' }).click();
      await page.getByText(`Order ${short(orders.confirm.id)} confirmed.`).waitFor();
      const confirmed = await read(`/v1/orders/${orders.confirm.id}`);
      expect(confirmed).toMatchObject({ status: 'confirmed', expires_at: null });
      expect(confirmed.paid_at).toEqual(expect.any(String));
      expect((await read(`/v1/bookings/${orders.confirm.booking}`)).status).toBe('active');
      await expect.poll(() => detail.getByRole('button', { name: 'Confirm order' }).count()).toBe(0);
      expect(await detail.getByRole('button', { name: 'Cancel order' }).count()).toBe(1);
      await expect.poll(async () => (await cells(rowOf('confirm')))[3]).toBe('Confirmed');
      const audit = (await read(`/v1/audit-logs?resource=orders&record_id=${orders.confirm.id}&action=update`)).items as { actor_type: string; actor_id: string; new_values: { status?: string } }[];
      expect(audit.map((entry) => [entry.actor_type, entry.actor_id, entry.new_values.status])).toEqual([['user', await userId(ordersAdminEmail), 'confirmed']]);

      // By keyboard: open the next order from its link, Tab to Cancel order, Enter.
      await rowOf('cancel')
        .getByRole('link', { name: `Order ${short(orders.cancel.id)}` })
        .focus();
      await page.keyboard.press('Enter');
      const cancelDetail = page.getByRole('region', { name: `Order ${short(orders.cancel.id)}`, exact: true });
      await cancelDetail.getByRole('button', { name: 'Cancel order' }).waitFor();
      await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('order-title');
      for (let tab = 0; tab < 6 && (await page.evaluate<string>('document.activeElement.textContent')) !== 'Cancel order'; tab++) await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Cancel order');
      await page.keyboard.press('Enter');
      await page.getByText(`Order ${short(orders.cancel.id)} cancelled: its units are free.`).waitFor();
      expect((await read(`/v1/orders/${orders.cancel.id}`)).status).toBe('cancelled');
      expect((await read(`/v1/bookings/${orders.cancel.booking}`)).status).toBe('cancelled');
      await expect.poll(() => cancelDetail.getByRole('button').count()).toBe(0);
      await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('order-title');

      // Paid and cancelled orders offer what their status allows.
      await rowOf('paid')
        .getByRole('link', { name: `Order ${short(orders.paid.id)}` })
        .click();
      const paidDetail = page.getByRole('region', { name: `Order ${short(orders.paid.id)}`, exact: true });
      await paidDetail.getByRole('button', { name: 'Cancel order' }).waitFor();
      expect(await paidDetail.getByRole('button', { name: 'Confirm order' }).count()).toBe(0);
      await rowOf('gone')
        .getByRole('link', { name: `Order ${short(orders.gone.id)}` })
        .click();
      const goneDetail = page.getByRole('region', { name: `Order ${short(orders.gone.id)}`, exact: true });
      await goneDetail.getByText('No change is possible from this status.').waitFor();
      expect(await goneDetail.getByRole('button').count()).toBe(0);

      // A refusal: the order is cancelled behind the console's back; Confirm order shows the API's detail.
      await rowOf('refuse')
        .getByRole('link', { name: `Order ${short(orders.refuse.id)}` })
        .click();
      const refuseDetail = page.getByRole('region', { name: `Order ${short(orders.refuse.id)}`, exact: true });
      await refuseDetail.getByRole('button', { name: 'Confirm order' }).waitFor();
      await api('PATCH', `/v1/orders/${orders.refuse.id}`, { status: 'cancelled' }, { 'if-match': (await api('GET', `/v1/orders/${orders.refuse.id}`)).etag });
      await refuseDetail.getByRole('button', { name: 'Confirm order' }).click();
      await expect.poll(() => refuseDetail.getByRole('alert').textContent()).toBe('A cancelled order cannot be confirmed');
      await expect.poll(() => refuseDetail.getByRole('button').count()).toBe(0);
      expect((await read(`/v1/orders/${orders.refuse.id}`)).status).toBe('cancelled');

      // The booking link opens the product's page with the booking marked; its row links back to the order.
      await rowOf('confirm')
        .getByRole('link', { name: `Booking ${short(orders.confirm.booking)}` })
        .click();
      await page.getByRole('heading', { name: 'Harbour Loft', level: 2 }).waitFor();
      const marked = page.getByRole('table', { name: 'Bookings of Harbour Loft' }).locator('tr[aria-current="true"]');
      await marked.waitFor();
      expect((await cells(marked)).slice(4)).toEqual(['Active', short(orders.confirm.id), '']);
      await marked.getByRole('link', { name: `Order ${short(orders.confirm.id)}` }).click();
      await page
        .getByRole('region', { name: `Order ${short(orders.confirm.id)}`, exact: true })
        .getByText('Confirmed', { exact: true })
        .waitFor();
      expect(problems).toEqual([expectedRefusal]);
    } finally {
      await close();
    }
  }, 120_000);

  it("shows a product's price, rates with their restrictions and service charges; adds and removes a rate, showing the API's refusal", async () => {
    const { page, problems, close } = await consolePage(pricingAdminEmail);
    try {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products' }).click();
      await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
      const productRow = page.getByRole('table', { name: 'Products of this tenant' }).getByRole('row', { name: /Harbour Loft/ });
      await productRow.waitFor();
      expect((await cells(productRow)).slice(0, 4)).toEqual(['Harbour Loft', 'Hamburg', '3', '€120.00 / night']);
      await page.getByRole('button', { name: 'Harbour Loft' }).click();
      const pricing = page.getByRole('region', { name: 'Price and rates', exact: true });
      await pricing.waitFor();
      expect(await pricing.locator('dl > div').allTextContents()).toEqual(['Price€120.00 / night', 'Price unitNight', 'CurrencyEUR (Euro)']);

      const rates = pricing.getByRole('table', { name: 'Rates of Harbour Loft' });
      await expect.poll(() => rates.getByRole('row').count()).toBe(3);
      const rateRows = async () => Promise.all((await rates.getByRole('row').all()).slice(1).map(cells));
      expect(await rates.getByRole('columnheader').allTextContents()).toEqual(['Dates', 'Price', 'Min stay', 'Max stay', 'Closed', 'Closed to arrival', 'Actions']);
      expect(await rateRows()).toEqual([
        [expect.stringMatching(new RegExp(`^\\w{3} ${day(10)} – \\w{3} ${day(12)}$`)), '€150.00', '2 nights', '—', 'No', 'No', expect.stringMatching(/^Remove rate /)],
        [expect.stringMatching(new RegExp(`^\\w{3} ${day(25)} – \\w{3} ${day(26)}$`)), 'Product price', '—', '—', 'No', 'Yes', expect.stringMatching(/^Remove rate /)],
      ]);
      const charges = pricing.getByRole('table', { name: 'Service charges of Harbour Loft' });
      await expect.poll(() => charges.getByRole('row').count()).toBe(2);
      expect(await cells(charges.getByRole('row').nth(1))).toEqual(['Cleaning', 'Per order', '€25.00']);
      await checkAndShoot(page, shots, 'product-pricing');

      // Add a closed rate with its own price; the API stores `to` as the day after the last date.
      await pricing.getByRole('button', { name: 'Add rate' }).click();
      const dialog = page.getByRole('dialog', { name: 'New rate' });
      await dialog.getByLabel('First date').fill(day(40));
      await dialog.getByLabel('Last date').fill(day(41));
      await dialog.getByLabel('Price per night').fill('99.5');
      await dialog.getByLabel('Closed', { exact: true }).check();
      await dialog.getByRole('button', { name: 'Create' }).click();
      await pricing.getByText(/^Rate .* added\.$/).waitFor();
      const stored = (await read(`/v1/products/${productId}/rates`)).items as Record<string, unknown>[];
      expect(stored.find((rate) => rate.from === day(40))).toMatchObject({ to: day(42), price: 99.5, closed: true, closed_to_arrival: false, min_stay: null, max_stay: null });
      await expect.poll(() => rates.getByRole('row').count()).toBe(4);
      expect((await rateRows())[2]?.slice(1, 6)).toEqual(['€99.50', '—', '—', 'Yes', 'No']);

      // An overlapping rate: the dialog shows the API's problem detail and stays open.
      await pricing.getByRole('button', { name: 'Add rate' }).click();
      await dialog.getByLabel('First date').fill(day(11));
      await dialog.getByLabel('Last date').fill(day(11));
      await dialog.getByRole('button', { name: 'Create' }).click();
      await expect.poll(() => dialog.getByRole('alert').textContent()).toMatch(/^The rate \S+ of the product already covers .* \(exclusive\)$/);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(((await read(`/v1/products/${productId}/rates`)).items as unknown[]).length).toBe(3);

      // Remove the new rate.
      await rates.getByRole('row').nth(3).getByRole('button', { name: 'Remove rate' }).click();
      await pricing.getByText(/^Rate .* removed\.$/).waitFor();
      await expect.poll(() => rates.getByRole('row').count()).toBe(3);
      expect(((await read(`/v1/products/${productId}/rates`)).items as { from: string }[]).map((rate) => rate.from)).toEqual([day(10), day(25)]);
      expect(problems).toEqual([expectedRefusal]);
    } finally {
      await close();
    }
  }, 120_000);
});
