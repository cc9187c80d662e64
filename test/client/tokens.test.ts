import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, BookingClientError, ConnectionError, createClient, TokenRequestError } from '../../packages/client/src/index.js';
import { freePort } from '../support/free-port.js';
import { crud, listeningService, manualClock, recordingFetch } from '../support/listening-service.js';
import type { ClientCredentials, ListeningService } from '../support/listening-service.js';

describe('client library: tokens against the real service', () => {
  let service: ListeningService;
  let credentials: ClientCredentials;

  beforeAll(async () => {
    // Two-minute tokens; the skew allowance lets the hand-moved clock sign assertions a minute ahead.
    service = await listeningService({ env: { ACCESS_TOKEN_TTL_SECONDS: '120', CLOCK_SKEW_SECONDS: '120' } });
    credentials = await service.credentials(crud('products'));
  });
  afterAll(() => service.close());

  it('reuses a token until 60 s before it expires, then fetches a new one', async () => {
    const clock = manualClock();
    const recorder = recordingFetch();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, clock, fetch: recorder.fetch });

    await client.products.list().toArray();
    const first = await client.accessToken();
    expect(recorder.count('/v1/auth/token')).toBe(1);

    clock.advance(59_000);
    await client.products.list().toArray();
    expect(await client.accessToken()).toBe(first);
    expect(recorder.count('/v1/auth/token')).toBe(1);

    clock.advance(2_000);
    await client.products.list().toArray();
    const second = await client.accessToken();
    expect(recorder.count('/v1/auth/token')).toBe(2);
    expect(second.value).not.toBe(first.value);
    expect(decodeJwt(second.value).sub).toBe(credentials.clientId);
  });

  it('sends one token request for many concurrent calls', async () => {
    const recorder = recordingFetch();
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, fetch: recorder.fetch });
    await Promise.all(Array.from({ length: 8 }, () => client.products.list({ perPage: 1 }).pages()[Symbol.asyncIterator]().next()));
    expect(recorder.count('/v1/auth/token')).toBe(1);
    expect(recorder.count('/v1/products')).toBe(8);
  });

  it('uses the kid given, or the key thumbprint the service defaults to, and requests the scope given', async () => {
    const withKid = createClient({ baseUrl: `${service.origin}/v1/`, clientId: credentials.clientId, privateKey: credentials.privateKey, kid: credentials.kid, scope: 'products:list' });
    const token = await withKid.accessToken();
    expect(token.scope).toBe('products:list');
    expect(decodeJwt(token.value).scope).toBe('products:list');
  });

  it('reports a refused token request as TokenRequestError with the OAuth error', async () => {
    const stranger = createClient({ baseUrl: service.origin, clientId: 'no-such-client', privateKey: credentials.privateKey });
    const error = await stranger.products.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ status: 401, error: 'invalid_client' });

    const badScope = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey, scope: 'bookings:delete' });
    await expect(badScope.accessToken()).rejects.toMatchObject({ status: 400, error: 'invalid_scope' });
  });

  it('names the URL it asked and the status it got when the answer is no token (another program on the port)', async () => {
    // A development server that answers every path with a page, as one on the quick start's port does.
    const other = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>It works</p>'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const client = createClient({ baseUrl: origin, clientId: credentials.clientId, privateKey: credentials.privateKey });
      const error = await client.accessToken().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BookingClientError);
      expect((error as Error).message).toBe(`POST ${origin}/v1/auth/token answered HTTP 200 (text/html) without access_token/expires_in`);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('names the URL and status of a refusal that is no OAuth error (a wrong token URL)', async () => {
    const tokenUrl = `${service.origin}/v1/no-such-endpoint`;
    const client = createClient({ baseUrl: service.origin, tokenUrl, clientId: credentials.clientId, privateKey: credentials.privateKey });
    const error = await client.accessToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ status: 404, error: 'http_404' });
    expect((error as Error).message).toContain(`http_404: POST ${tokenUrl} answered HTTP 404 (application/problem+json`);
  });

  it('names the URL when nothing answers there', async () => {
    // A port that was free a moment ago: nothing listens on it.
    const origin = `http://127.0.0.1:${await freePort()}`;
    const client = createClient({ baseUrl: origin, clientId: credentials.clientId, privateKey: credentials.privateKey, retry: { maxAttempts: 2, networkBackoffMs: 0 } });
    const error = await client.accessToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe(`POST ${origin}/v1/auth/token failed (after 2 attempts): ECONNREFUSED`);
  });

  it('replaces a token the API refuses once, then reports AuthenticationError', async () => {
    // Tokens from this service are not valid at another instance with its own issuer and keys.
    const other = await listeningService();
    try {
      const recorder = recordingFetch();
      const client = createClient({ baseUrl: other.origin, tokenUrl: `${service.origin}/v1/auth/token`, clientId: credentials.clientId, privateKey: credentials.privateKey, fetch: recorder.fetch });
      const error = await client.products
        .list()
        .toArray()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error).toMatchObject({ status: 401, code: 'invalid_token' });
      expect((error as AuthenticationError).headers.get('www-authenticate')).toContain('invalid_token');
      expect(recorder.calls.map((c) => c.split('?')[0])).toEqual(['POST /v1/auth/token', 'GET /v1/products', 'POST /v1/auth/token', 'GET /v1/products']);
    } finally {
      await other.close();
    }
  });

  it('sends raw requests to any API path with the same authentication', async () => {
    const client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey: credentials.privateKey });
    const response = await client.request<{ items: unknown[] }>({ method: 'GET', path: '/products', query: new URLSearchParams({ per_page: '1' }) });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-per-page')).toBe('1');
    expect(response.body.items).toEqual([]);
  });
});
