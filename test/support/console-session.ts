import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousAxeViolations } from './browser.js';
import { codeIn, waitFor } from './mail-and-sms.js';
import type { Received } from './mail-and-sms.js';

/**
 * An administrator's first console sign-in, as a person does it: the e-mailed code, TOTP
 * enrolment from the QR code's key, then the step-up with the next code. The session then
 * carries `totp` in `amr`, as administrative writes need.
 */
export async function signInToConsole(page: Page, smtp: { readonly messages: Received[] }, tenant: string, email: string): Promise<void> {
  const before = smtp.messages.length;
  await page.getByLabel('Tenant ID').fill(tenant);
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await waitFor(smtp.messages, before + 1);
  await page.getByLabel('One-time code').fill(codeIn(smtp.messages.slice(before).find((m) => m.to === email)));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('img', { name: 'QR code of your TOTP key' }).waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  await page.getByLabel('Code from the app').fill(totp.generate());
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.getByLabel('Next code from the app').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/**
 * Where the console tests put screenshots: docs/admin with `UPDATE_SCREENSHOTS=1`,
 * otherwise a temporary folder, so a test run leaves the tree clean.
 */
export function screenshotDir(): string {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/admin/', import.meta.url)) : mkdtempSync(join(tmpdir(), 'console-shots-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The page as it is now, at desktop (1280 px) and phone (390 px) width: no serious axe
 * finding, no sideways scrolling on the phone, and a full-page screenshot `{name}-{width}.png`.
 */
export async function checkAndShoot(page: Page, dir: string, name: string): Promise<void> {
  for (const [width, height, suffix] of [
    [1280, 800, 'desktop'],
    [390, 844, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    expect(await seriousAxeViolations(page), `${name} ${suffix}`).toEqual([]);
    const widths = await page.evaluate<{ scroll: number; inner: number }>('({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth })');
    if (suffix === 'phone' && widths.scroll > widths.inner) {
      // Name the elements that stick out, so the failure says what to fix.
      const wide = await page.evaluate<string[]>(
        `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`,
      );
      expect(widths.scroll, `${name} overflows at phone width: ${wide.join(', ')}`).toBeLessThanOrEqual(widths.inner);
    }
    await page.screenshot({ path: join(dir, `${name}-${suffix}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
