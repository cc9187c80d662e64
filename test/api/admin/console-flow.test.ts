import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getResource } from '../../../src/registry/index.js';
import { asSystem } from '../../../src/security/principal.js';
import { adminBundle } from '../../support/admin-bundle.js';
import { launchChromium, seriousAxeViolations } from '../../support/browser.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import type { TestKeyPair } from '../../support/keys.js';
import { signAssertion } from '../../support/keys.js';
import { codeIn, startSmtp, waitFor } from '../../support/mail-and-sms.js';

const adminEmail = 'console-admin@example.test';

describe('administration console in Chromium: first sign-in to a disabled API client', () => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let tenant: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    h = await createHarness('sqlite', { adminDir: await adminBundle(), env: { SMTP_URL: smtp.url } });
    tenant = await h.tenant('Console');
    const scope = { nodeId: tenant, level: 'tenant' as const, path: `/${tenant}/` };
    await h.app.resources.create({ principal: { ...asSystem(), scope }, clientIp: null, requestId: null }, getResource('users'), { email: adminEmail, role: 'admin' });
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  /** A token from /v1/auth/token for a client whose private key is a PEM the browser produced. */
  async function tokenFor(clientId: string, kid: string, pem: string) {
    const key: TestKeyPair = { privateKey: createPrivateKey(pem), publicPem: '', alg: 'ES256' };
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await signAssertion(key, clientId, h.config.tokenEndpoint, { kid }),
    });
    return h.app.server.inject({ method: 'POST', url: '/v1/auth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form.toString() });
  }

  it('signs in with an e-mailed code, enrols TOTP, creates a client with a browser key, rotates and disables it', async () => {
    const address = await h.app.server.listen({ host: '127.0.0.1', port: 0 });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ acceptDownloads: true });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      await page.goto(`${address}/admin/`);

      // E-mail one-time password.
      await page.getByLabel('Tenant ID').fill(tenant);
      await page.getByLabel('E-mail').fill(adminEmail);
      await page.getByRole('button', { name: 'Send code' }).click();
      await waitFor(smtp.messages, 1);
      await page.getByLabel('One-time code').fill(codeIn(smtp.messages[0]));
      await page.getByRole('button', { name: 'Verify' }).click();

      // First sign-in: enrol an authenticator from the QR code's key, then step up.
      await page.getByRole('img', { name: 'QR code of your TOTP key' }).waitFor();
      const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
      const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
      await page.getByLabel('Code from the app').fill(totp.generate());
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByLabel('Next code from the app').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
      await page.getByRole('button', { name: 'Continue' }).click();

      // Settings → API Clients → New API client, with a key pair made in the browser.
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('link', { name: 'API Clients' }).first().click();
      await page.getByRole('heading', { name: 'API Clients' }).waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'New API client' }).click();
      const dialog = page.getByRole('dialog', { name: 'New API client' });
      await dialog.getByLabel('Name').fill('console-made');
      await dialog.getByLabel('Capabilities').selectOption(['products:list', 'products:read']);
      await dialog.getByRole('button', { name: 'Generate key pair in browser' }).click();
      expect(await dialog.getByLabel('Public key').inputValue()).toContain('BEGIN PUBLIC KEY');
      const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: 'Download private key' }).click()]);
      const privatePem = readFileSync(String(await download.path()), 'utf8');
      expect(privatePem).toContain('BEGIN PRIVATE KEY');
      expect(await seriousAxeViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'Client console-made created' }).waitFor();
      expect(await page.locator('pre code').textContent()).toContain('token --url');

      // The downloaded private key obtains a token; the server never saw it.
      const client = await h.database.db.selectFrom('api_clients').select(['_id']).where('name', '=', 'console-made').executeTakeFirstOrThrow();
      const clientId = String(client._id);
      const firstKid = String((await h.database.db.selectFrom('api_client_keys').select('kid').where('client_id', '=', clientId).executeTakeFirstOrThrow()).kid);
      const issued = await tokenFor(clientId, firstKid, privatePem);
      expect(issued.statusCode, issued.body).toBe(200);
      const token = issued.json().access_token as string;
      expect((await h.request({ method: 'GET', url: '/v1/products', token })).statusCode).toBe(200);
      const audit = await h.database.db.selectFrom('audit_logs').select(['actor_type']).where('record_id', '=', clientId).where('action', '=', 'create').executeTakeFirstOrThrow();
      expect(audit.actor_type).toBe('user');

      // Rotate key: a second key, made in the browser too.
      const row = page.getByRole('row', { name: /console-made/ });
      await row.getByRole('button', { name: 'Rotate key' }).click();
      const rotate = page.getByRole('dialog', { name: 'Rotate key' });
      await rotate.getByRole('button', { name: 'Generate key pair in browser' }).click();
      await rotate.getByRole('button', { name: 'Add key' }).click();
      await page.getByText('New key added to console-made.').waitFor();
      expect(await h.database.db.selectFrom('api_client_keys').select('kid').where('client_id', '=', clientId).execute()).toHaveLength(2);

      // Disable: the client's token is refused at once.
      await row.getByRole('button', { name: 'Disable' }).click();
      await page.getByText('console-made disabled.').waitFor();
      expect((await h.request({ method: 'GET', url: '/v1/products', token })).statusCode).toBe(401);
      expect(await row.getByRole('button', { name: 'Enable' }).isVisible()).toBe(true);

      // Signing out leaves nothing behind in storage.
      expect(await page.evaluate<number>('localStorage.length + sessionStorage.length')).toBe(0);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Tenant ID').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
