import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthHarness } from '../../support/auth-harness.js';
import type { AuthHarness } from '../../support/auth-harness.js';
import { dpopKey, dpopProof } from '../../support/dpop.js';

const secret = 's'.repeat(40);

describe('DPoP nonces across instances', () => {
  let one: AuthHarness;
  let two: AuthHarness;
  let other: AuthHarness;

  beforeAll(async () => {
    one = await createAuthHarness('sqlite', { env: { DPOP_NONCE: 'true', DPOP_NONCE_SECRET: secret } });
    two = await createAuthHarness('sqlite', { env: { DPOP_NONCE: 'true', DPOP_NONCE_SECRET: secret } });
    other = await createAuthHarness('sqlite', { env: { DPOP_NONCE: 'true' } });
  });
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close(), other?.close()]);
  });

  async function nonceFrom(h: AuthHarness): Promise<string> {
    const client = await h.client(null, ['products:list']);
    const res = await h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await dpopProof(await dpopKey(), { htm: 'POST', htu: h.config.tokenEndpoint }) } });
    return String(res.headers['dpop-nonce']);
  }

  it('accepts a nonce issued by another instance with the same DPOP_NONCE_SECRET, not by one without', async () => {
    const nonce = await nonceFrom(one);
    const useAt = async (h: AuthHarness) => {
      const client = await h.client(null, ['products:list']);
      return h.tokenRequest(await h.assertionForm(client), { headers: { dpop: await dpopProof(await dpopKey(), { htm: 'POST', htu: h.config.tokenEndpoint, nonce }) } });
    };
    expect((await useAt(two)).statusCode).toBe(200);
    expect((await useAt(other)).json().error).toBe('use_dpop_nonce');
  });

  it('refuses a short secret at start-up', async () => {
    await expect(createAuthHarness('sqlite', { env: { DPOP_NONCE: 'true', DPOP_NONCE_SECRET: 'short' } })).rejects.toThrow(/at least 32/);
  });
});
