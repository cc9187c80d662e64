import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageInfo } from '../../../src/observability/package-info.js';
import type { Clock } from '../../../src/core/clock.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { launchChromium } from '../../support/browser.js';

const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const screenshot = new URL('../../../docs/status-page.png', import.meta.url);

/** A clock the test moves: the screenshot then shows the same time and uptime on every run. */
function settableClock(start: number): Clock & { set(ms: number): void } {
  let now = start;
  return { now: () => now, set: (ms) => void (now = ms) };
}

describe('GET /status', () => {
  const started = Date.parse('2026-01-15T08:00:00Z');
  const clock = settableClock(started);
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite', { clock, env: { METRICS_TOKEN: 'status-page-secret-0123456789' } });
    clock.set(started + (3 * 3600 + 25 * 60) * 1000);
  });
  afterAll(() => h.close());

  it('is a public, self-contained HTML page with its own CSP and no secrets', async () => {
    const res = await h.request({ method: 'GET', url: '/status' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(csp);
    expect(res.headers['cache-control']).toBe('no-store');
    const html = res.body;
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import/i);
    for (const text of ['All systems operational', 'Database', 'SQLite', packageInfo().version, '3 h 25 min', '2026-01-15 11:25:00 UTC']) expect(html).toContain(text);
    for (const secret of [h.config.dataDir, 'status-page-secret', h.config.publicUrl, 'signing-keys']) expect(html).not.toContain(secret);
  });

  it('shows the same checks as /ready: degraded while shutting down', async () => {
    h.app.state.shuttingDown = true;
    try {
      const html = (await h.request({ method: 'GET', url: '/status' })).body;
      expect(html).toContain('Shutting down');
      expect(html).not.toContain('All systems operational');
      expect((await h.request({ method: 'GET', url: '/ready' })).statusCode).toBe(503);
    } finally {
      h.app.state.shuttingDown = false;
    }
  });

  it('renders on a phone in headless Chromium without overflow or blocked loads', async () => {
    const address = await h.app.server.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
      const requests: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('console', (message) => problems.push(message.text()));
      page.on('pageerror', (error) => problems.push(error.message));
      const response = await page.goto(`${address}/status`);
      expect(response?.status()).toBe(200);
      await expect.poll(() => page.getByText('All systems operational').isVisible()).toBe(true);
      expect(await page.getByText('Database', { exact: true }).isVisible()).toBe(true);
      expect(await page.getByText('Operational', { exact: true }).first().isVisible()).toBe(true);
      // A string expression: the test's TypeScript has no DOM types, the page has the DOM.
      const widths = await page.evaluate<{ scroll: number; inner: number }>('({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })');
      expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
      expect(requests).toEqual([`${address}/status`]);
      expect(problems).toEqual([]);
      mkdirSync(new URL('.', screenshot), { recursive: true });
      await page.screenshot({ path: screenshot.pathname, fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
