import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSystem } from '../../../src/core/principal.js';
import { getResource } from '../../../src/registry/index.js';
import { adminBundle } from '../../support/admin-bundle.js';
import { launchChromium } from '../../support/browser.js';
import { checkAndShoot, screenshotDir, signInToConsole } from '../../support/console-session.js';
import { startFeedServer } from '../../support/feed-server.js';
import type { FeedServer } from '../../support/feed-server.js';
import { createHarness, crud } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { startSmtp } from '../../support/mail-and-sms.js';

const adminEmail = 'calendars-admin@example.test';

/** `YYYY-MM-DD` of today (UTC) plus `days`. */
function day(days: number): string {
  const date = new Date();
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}
/** An iCalendar feed as a channel writes it, of all-day events `[from, to)` (days from today). */
function feed(...events: [uid: string, from: number, to: number][]): string {
  const date = (days: number) => day(days).replace(/-/g, '');
  const lines = events.flatMap(([uid, from, to]) => ['BEGIN:VEVENT', `UID:${uid}`, `DTSTART;VALUE=DATE:${date(from)}`, `DTEND;VALUE=DATE:${date(to)}`, 'SUMMARY:Reserved', 'END:VEVENT']);
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test channel//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
}

describe('administration console in Chromium: a product’s calendars (feed URL, imports with their health and conflicts)', () => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let feeds: FeedServer;
  let tenant: string;
  let apiToken: string;
  let address: string | undefined;
  let loft: string;
  let atelier: string;
  let airbnb: string;
  let firstFeedUrl: string;
  const shots = screenshotDir();

  async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await h.request({ method, url, token: apiToken, headers, ...(body === undefined ? {} : { body }) });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return (response.statusCode === 204 ? {} : response.json()) as Record<string, unknown>;
  }
  const items = async (url: string) => (await api('GET', url)).items as Record<string, unknown>[];

  beforeAll(async () => {
    smtp = await startSmtp();
    feeds = await startFeedServer();
    // The channels' feeds are on this machine's loopback: allowed, over http, for this test only.
    h = await createHarness('sqlite', { adminDir: await adminBundle(), env: { SMTP_URL: smtp.url, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
    tenant = await h.tenant('Console calendars');
    const scope = { nodeId: tenant, level: 'tenant' as const, path: `/${tenant}/` };
    await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), { email: adminEmail, role: 'admin' });
    apiToken = await h.bearer(tenant, [...crud('products'), ...crud('bookings'), 'users:list', 'users:read', 'audit-logs:list']);
    // One unit in Lisbon, booked directly on day 20; Airbnb's feed blocks days 5–7 and wants
    // days 20–21 too, which do not fit: a conflict. Its feed and the import through the API.
    const product = (name: string) => api('POST', '/v1/products', { name, address: 'Rua 1', city: 'Lisbon', zip_code: '1100', total_items: 1, time_zone: 'Europe/Lisbon' });
    loft = String((await product('Harbour Loft'))._id);
    atelier = String((await product('Atelier'))._id);
    await api('POST', '/v1/bookings', { product_id: loft, start_time: `${day(20)}T14:00:00Z`, end_time: `${day(21)}T10:00:00Z`, reference: 'DIRECT-1' });
    feeds.set('/airbnb.ics', { body: feed(['a1@airbnb.test', 5, 8], ['a2@airbnb.test', 20, 22]) });
    feeds.set('/booking.ics', { body: feed(['b1@booking.test', 10, 12]) });
    firstFeedUrl = String((await api('POST', `/v1/products/${loft}/calendar-feed`)).url);
    const created = await api('POST', `/v1/products/${loft}/calendar-imports`, { url: `${feeds.origin}/airbnb.ics`, name: 'Airbnb' });
    expect(created).toMatchObject({ status: 'ok', events: 1, conflicts: [{ external_uid: 'a2@airbnb.test', available: 0 }] });
    airbnb = String(created._id);
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
    await feeds?.close();
  });

  /** A signed-in console page that may read and write the clipboard. */
  async function consolePage(): Promise<{ page: Page; problems: string[]; close: () => Promise<void> }> {
    address ??= await h.app.server.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: address });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    await page.goto(`${address}/admin/`);
    await signInToConsole(page, smtp, tenant, adminEmail);
    return { page, problems, close: () => browser.close() };
  }
  /** The text of every cell of a row, row header first. */
  const cells = (row: ReturnType<Page['getByRole']>) => row.locator('th, td').allTextContents();
  /** What the browser reports for a 404 the test provokes on purpose (the page handles it; tested). */
  const notFound = 'Failed to load resource: the server responded with a status of 404 (Not Found)';
  const host = () => new URL(feeds.origin).host;

  it('shows, copies and rotates the feed URL; lists imports with health and conflicts; adds, syncs and removes imports; blocks show as Calendar in the bookings', async () => {
    const { page, problems, close } = await consolePage();
    try {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products' }).click();
      await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Harbour Loft' }).click();
      const calendars = page.getByRole('region', { name: 'Calendars', exact: true });
      const status = page.locator('#calendar-status');
      const imports = calendars.getByRole('table', { name: 'Calendar imports of Harbour Loft' });
      const importRow = (name: string) => imports.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });

      // The import made through the API: healthy, one event blocked, one conflict listed in its disclosure.
      await importRow('Airbnb').waitFor();
      expect(await imports.getByRole('columnheader').allTextContents()).toEqual(['Name', 'URL', 'Units', 'Status', 'Last synced', 'Last error', 'Events', 'Skipped', 'Conflicts', 'Actions']);
      const airbnbCells = await cells(importRow('Airbnb'));
      expect(airbnbCells.slice(0, 4)).toEqual(['Airbnb', `${host()}/airbnb.ics`, '1', 'OK']);
      expect(airbnbCells[4]).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2}$/);
      expect(airbnbCells.slice(5, 8)).toEqual(['—', '1', '0']);
      const conflicts = importRow('Airbnb').getByRole('group');
      await importRow('Airbnb').getByText('1 conflict').click();
      const conflict = conflicts.getByRole('listitem');
      await conflict.waitFor();
      expect(await conflict.textContent()).toMatch(/^\d{1,2} \w{3} \d{4} – \d{1,2} \w{3} \d{4}0 of 1 unit free; event a2@airbnb\.test$/);

      // Bookings: the block shows its import and offers no Cancel; the direct booking does.
      const bookings = page.getByRole('table', { name: 'Bookings of Harbour Loft' });
      const block = bookings.getByRole('row').filter({ hasText: 'Calendar: Airbnb' });
      await block.waitFor();
      expect(await block.count()).toBe(1);
      expect((await cells(block)).slice(4)).toEqual(['Active', 'Calendar: Airbnb', '']);
      expect(await block.getByRole('button').count()).toBe(0);
      await bookings.getByRole('row').filter({ hasText: 'DIRECT-1' }).getByRole('button', { name: 'Cancel booking' }).waitFor();

      // The feed URL, shown on request (it is a credential), in a read-only field; focus moves to it.
      await calendars.getByRole('button', { name: 'Show feed URL' }).click();
      const field = calendars.getByRole('textbox', { name: 'Feed URL' });
      await field.waitFor();
      expect(await field.inputValue()).toBe(firstFeedUrl);
      expect(await field.getAttribute('readonly')).not.toBeNull();
      await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('calendar-feed-url');
      // Copy: the clipboard holds the URL and the live region says so.
      await calendars.getByRole('button', { name: 'Copy', exact: true }).click();
      await expect.poll(() => status.textContent()).toBe('Feed URL copied to the clipboard.');
      expect(await status.getAttribute('role')).toBe('status');
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(firstFeedUrl);

      // Rotate, after a confirmation: the old URL answers 404 at once, the new one the feed.
      await calendars.getByRole('button', { name: 'Rotate', exact: true }).click();
      const rotateDialog = page.getByRole('dialog', { name: 'Rotate feed URL' });
      await rotateDialog.getByText('The current URL stops working at once').waitFor();
      await rotateDialog.getByRole('button', { name: 'Rotate feed URL' }).click();
      await expect.poll(() => status.textContent()).toBe('Feed URL rotated: the old URL no longer works. Give the new one to each channel.');
      const rotatedUrl = await field.inputValue();
      expect(rotatedUrl).not.toBe(firstFeedUrl);
      expect((await api('GET', `/v1/products/${loft}/calendar-feed`)).url).toBe(rotatedUrl);
      expect((await h.request({ method: 'GET', url: new URL(firstFeedUrl).pathname })).statusCode).toBe(404);
      const exported = await h.request({ method: 'GET', url: new URL(rotatedUrl).pathname });
      expect(exported.statusCode).toBe(200);
      expect(exported.body).toContain('BEGIN:VCALENDAR');
      const audit = await items(`/v1/audit-logs?resource=products&record_id=${loft}&action=calendar_feed_rotated`);
      expect(audit.map((entry) => entry.actor_type)).toEqual(['user', 'client']);

      // Add imports in the dialog: the answer after the first sync says how it went.
      const addImport = async (url: string, name: string) => {
        await calendars.getByRole('button', { name: 'Add import' }).click();
        const dialog = page.getByRole('dialog', { name: 'New calendar import' });
        await dialog.getByLabel('Calendar URL').fill(url);
        await dialog.getByLabel('Name').fill(name);
        expect(await dialog.getByLabel('Units each event blocks').inputValue()).toBe('1');
        await dialog.getByRole('button', { name: 'Create' }).click();
        await dialog.waitFor({ state: 'hidden' });
      };
      await addImport(`${feeds.origin}/booking.ics`, 'Booking.com');
      await expect.poll(() => status.textContent()).toBe('Import added. Booking.com: synced, 1 event blocked.');
      await importRow('Booking.com').waitFor();
      expect((await cells(importRow('Booking.com'))).slice(0, 4)).toEqual(['Booking.com', `${host()}/booking.ics`, '1', 'OK']);
      await addImport(`${feeds.origin}/gone.ics`, 'Google');
      await expect.poll(() => status.textContent()).toBe('Import added. Google: the sync failed (the feed answered HTTP 404); its blocks are unchanged.');
      await importRow('Google').waitFor();
      const googleCells = await cells(importRow('Google'));
      expect(googleCells[3]).toBe('Failing');
      expect(googleCells[4]).toMatch(/Last success: never$/);
      expect(googleCells.slice(5, 9)).toEqual(['the feed answered HTTP 404', '0', '0', '0']);
      const stored = await items(`/v1/products/${loft}/calendar-imports?sort=last_synced_at`);
      expect(stored.map((entry) => [entry.name, entry.status, entry.events])).toEqual([
        ['Airbnb', 'ok', 1],
        ['Booking.com', 'ok', 1],
        ['Google', 'failing', 0],
      ]);
      await bookings.getByRole('row').filter({ hasText: 'Calendar: Booking.com' }).waitFor();

      await checkAndShoot(page, shots, 'calendars');

      // Keyboard: the dialog opens from the button, its first field takes focus, Escape closes it and focus returns.
      await calendars.getByRole('button', { name: 'Add import' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('import-url');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'New calendar import' }).waitFor({ state: 'hidden' });
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Add import');

      // Sync now, after the channel added an event.
      feeds.set('/airbnb.ics', { body: feed(['a1@airbnb.test', 5, 8], ['a2@airbnb.test', 20, 22], ['a3@airbnb.test', 25, 27]) });
      await importRow('Airbnb').getByRole('button', { name: 'Sync now' }).click();
      await expect.poll(() => status.textContent()).toBe('Airbnb: synced, 2 events blocked, 1 conflict not applied.');
      await expect.poll(async () => (await cells(importRow('Airbnb')))[6]).toBe('2');
      await expect.poll(() => bookings.getByRole('row').filter({ hasText: 'Calendar: Airbnb' }).count()).toBe(2);
      expect((await items(`/v1/bookings?calendar_import_id=${airbnb}&sort=start_time`)).map((entry) => [entry.external_uid, entry.status])).toEqual([
        ['a1@airbnb.test', 'active'],
        ['a3@airbnb.test', 'active'],
      ]);

      // Remove, after a confirmation: the import's blocks are cancelled; focus lands on the imports' heading.
      const bookingCom = String(stored.find((entry) => entry.name === 'Booking.com')?._id);
      await importRow('Booking.com').getByRole('button', { name: 'Remove' }).click();
      const removeDialog = page.getByRole('dialog', { name: 'Remove calendar import' });
      await removeDialog.getByText('Its 1 block is cancelled at once').waitFor();
      await removeDialog.getByRole('button', { name: 'Remove import' }).click();
      await expect.poll(() => status.textContent()).toBe('Booking.com removed: its blocks are cancelled and their units are free.');
      await expect.poll(() => importRow('Booking.com').count()).toBe(0);
      await expect.poll(() => page.evaluate<string>('document.activeElement.id')).toBe('calendar-imports-title');
      const blocks = await items(`/v1/bookings?calendar_import_id=${bookingCom}`);
      expect(blocks.map((entry) => [entry.source, entry.status])).toEqual([['calendar', 'cancelled']]);
      const removed = bookings.getByRole('row').filter({ hasText: 'Calendar: removed import' });
      await expect.poll(async () => (await cells(removed)).slice(4)).toEqual(['Cancelled', 'Calendar: removed import', '']);

      // A refusal shows the API's detail: the Google import is deleted behind the console's back.
      const google = String(stored.find((entry) => entry.name === 'Google')?._id);
      const etag = String((await h.request({ method: 'GET', url: `/v1/products/${loft}/calendar-imports/${google}`, token: apiToken })).headers.etag);
      await api('DELETE', `/v1/products/${loft}/calendar-imports/${google}`, undefined, { 'if-match': etag });
      await importRow('Google').getByRole('button', { name: 'Sync now' }).click();
      await expect.poll(() => calendars.getByRole('alert').textContent()).toBe('No such calendar-imports record');
      await expect.poll(() => importRow('Google').count()).toBe(0);

      // A product without a feed: Show feed URL says so and offers Create feed URL.
      await page.getByRole('button', { name: 'Atelier' }).click();
      const atelierCalendars = page.getByRole('region', { name: 'Calendars', exact: true });
      await atelierCalendars.getByText('No calendar imports.').waitFor();
      await atelierCalendars.getByRole('button', { name: 'Show feed URL' }).click();
      await atelierCalendars.getByText('This product has no feed URL yet.').waitFor();
      await expect.poll(() => page.evaluate<string>('document.activeElement.textContent')).toBe('Create feed URL');
      await page.keyboard.press('Enter');
      await expect.poll(() => status.textContent()).toBe('Feed URL created. Give it to each channel that should see when this product is booked.');
      const created = await atelierCalendars.getByRole('textbox', { name: 'Feed URL' }).inputValue();
      expect((await api('GET', `/v1/products/${atelier}/calendar-feed`)).url).toBe(created);
      expect(problems).toEqual([notFound, notFound]);
    } finally {
      await close();
    }
  }, 180_000);
});
