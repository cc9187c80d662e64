import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { chromiumPath, findChromium } from './system-binaries.js';

/** Debian's Chromium, headless, without the background traffic this machine's closed network refuses. */
const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches Chromium, or fails loudly naming how to install it. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(`Chromium is missing at ${chromiumPath()}: install it (Debian: apt-get install -y chromium; the test set-up does this as root) or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath, args });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One accessibility problem axe-core found. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: readonly string[];
}

/**
 * axe-core's violations of serious or critical impact on the page as it is now. The
 * script is evaluated through the DevTools protocol, which the page's CSP does not govern,
 * so the page keeps its real policy.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }>('axe.run(document, { resultTypes: ["violations"] })');
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}
