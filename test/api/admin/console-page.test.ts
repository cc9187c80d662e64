import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminConsoleCsp } from '../../../src/routes/admin-console.js';
import { adminBundle } from '../../support/admin-bundle.js';
import { launchChromium, seriousAxeViolations } from '../../support/browser.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

describe('the administration console page', () => {
  let h: Harness;
  let bare: Harness;
  beforeAll(async () => {
    h = await createHarness('sqlite', { adminDir: await adminBundle() });
    bare = await createHarness('sqlite', { adminDir: '/nonexistent/admin' });
  });
  afterAll(async () => {
    await h.close();
    await bare.close();
  });

  it('is served at /admin with a CSP that allows no inline script, and hashed assets cached for good', async () => {
    for (const url of ['/admin', '/admin/']) {
      const page = await h.request({ method: 'GET', url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toBe(adminConsoleCsp);
      expect(adminConsoleCsp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
      const asset = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
      expect(asset).toBeDefined();
      const script = await h.request({ method: 'GET', url: String(asset) });
      expect(script.statusCode).toBe(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect((await h.request({ method: 'GET', url: '/admin/assets/..%2Fpackage.json' })).statusCode).toBe(404);
    expect((await h.request({ method: 'GET', url: '/admin/assets/nothing.js' })).statusCode).toBe(404);
  });

  it('answers 503 with the fix when the console was not built', async () => {
    const response = await bare.request({ method: 'GET', url: '/admin' });
    expect(response.statusCode).toBe(503);
    expect(response.json().detail).toContain('npm run build');
  });

  it('renders the sign-in form at phone width in Chromium: no CSP violation, no serious axe finding, keyboard reachable', async () => {
    const address = await h.app.server.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const problems: string[] = [];
      page.on('console', (message) => problems.push(message.text()));
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${address}/admin/`);
      await page.getByLabel('Tenant ID').waitFor();
      expect(await page.getByLabel('E-mail').isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Send code' }).isVisible()).toBe(true);
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.id')).toBe('tenant');
      expect(await seriousAxeViolations(page)).toEqual([]);
      const widths = await page.evaluate<{ scroll: number; inner: number }>('({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })');
      expect(widths.scroll).toBeLessThanOrEqual(widths.inner);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
