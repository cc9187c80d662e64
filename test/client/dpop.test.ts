import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../packages/client/src/index.js';
import { crud, listeningService, manualClock, recordingFetch } from '../support/listening-service.js';
import type { ClientCredentials, ListeningService } from '../support/listening-service.js';

const product = { name: 'Loft', address: 'Main St 1', city: 'Berlin', zip_code: '10115', total_items: 3 };

describe('client library: DPoP with server nonces (DPOP_NONCE=true)', () => {
  // One clock for the service and the client: moving it ages the service's nonces.
  const clock = manualClock();
  let service: ListeningService;
  let credentials: ClientCredentials;

  beforeAll(async () => {
    service = await listeningService({ env: { DPOP_NONCE: 'true' }, clock });
    credentials = await service.credentials(crud('products'));
  });
  afterAll(() => service.close());

  it('gets a DPoP-bound token after the nonce challenge and sends a proof with every call', async () => {
    const recorder = recordingFetch();
    const seen: { dpop: string | null; authorization: string | null }[] = [];
    const client = createClient({
      baseUrl: service.origin,
      clientId: credentials.clientId,
      privateKey: credentials.privateKey,
      dpop: true,
      clock,
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        seen.push({ dpop: headers.get('dpop'), authorization: headers.get('authorization') });
        return recorder.fetch(input, init);
      },
    });

    const { record } = await client.products.create(product);
    expect((await client.products.get(record._id)).record.name).toBe('Loft');

    // The token endpoint asked for its nonce once; the API calls then carried it.
    expect(recorder.calls).toEqual(['POST /v1/auth/token', 'POST /v1/auth/token', 'POST /v1/products', `GET /v1/products/${record._id}`]);
    const token = await client.accessToken();
    expect(token.type).toBe('DPoP');
    expect(decodeJwt(token.value).cnf).toEqual({ jkt: await client.dpopThumbprint() });
    expect(seen[0]?.dpop && decodeJwt(seen[0].dpop).nonce).toBeUndefined();
    const proofs = seen.map((s) => decodeJwt(s.dpop ?? ''));
    expect(proofs[1]?.nonce).toEqual(expect.any(String));
    expect(proofs[2]).toMatchObject({ htm: 'POST', htu: `${service.origin}/v1/products`, nonce: proofs[1]?.nonce, ath: expect.any(String) });
    expect(decodeProtectedHeader(seen[2]?.dpop ?? '')).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256', jwk: expect.objectContaining({ kty: 'EC' }) });
    expect(seen[2]?.authorization).toBe(`DPoP ${token.value}`);
    expect(new Set(proofs.map((p) => p.jti)).size).toBe(proofs.length);
  });

  it("answers the API's nonce challenge once the nonce is stale, without a new token", async () => {
    // Something to list, made by a client of its own (not recorded): the test stands alone.
    await createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, dpop: true, clock }).products.create(product);
    const recorder = recordingFetch();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, dpop: true, clock, fetch: recorder.fetch });
    await client.products.list().toArray();
    expect(recorder.count('/v1/auth/token')).toBe(2);

    // Nonces live for one 5-minute slot and the next; the token lives 15 minutes.
    clock.advance(11 * 60_000);
    const listed = await client.products.list().toArray();
    expect(listed.length).toBeGreaterThan(0);
    expect(recorder.calls.slice(3)).toEqual(['GET /v1/products?page=1&per_page=100', 'GET /v1/products?page=1&per_page=100']);
    expect(recorder.count('/v1/auth/token')).toBe(2);
  });
});
