import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { logLines, startServer, until } from '../../support/server-process.js';
import type { ServerProcess } from '../../support/server-process.js';

const form = 'application/x-www-form-urlencoded';

/** Whether the server has logged the arrival of a request for `url`. */
function sawRequest(stdout: string, url: string): boolean {
  return logLines(stdout).some((line) => line.msg === 'request received' && line.req?.url === url);
}

function tokenForm(assertion: string): string {
  return new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: 'nobody',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
  }).toString();
}

// One server process: the log check reads it while it runs, the last step shuts it down, so
// the steps keep their order under `--sequence.shuffle`.
describe('the real server process', { shuffle: false }, () => {
  let dir: string;
  let server: ServerProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-server-'));
    server = startServer(await freePort(), { DATA_DIR: dir, SHUTDOWN_GRACE_MS: '20000', LOG_LEVEL: 'debug' });
    await server.waitReady();
  }, 60_000);
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('never writes Authorization or DPoP header values, nor client assertions, to its logs', async () => {
    const marker = randomUUID().replaceAll('-', '');
    const secret = (name: string) => `${name}Secret${marker}`;
    const jwtShaped = (name: string) => `eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJub2JvZHkifQ.${secret(name)}`;
    const sends: [string, RequestInit][] = [
      ['/v1/products/', { headers: { authorization: `Bearer ${secret('bearer')}` } }],
      ['/v1/products/', { headers: { authorization: `Bearer ${jwtShaped('bearerJwt')}` } }],
      ['/v1/products/', { headers: { authorization: `DPoP ${secret('dpopToken')}`, dpop: secret('dpopProof') } }],
      ['/v1/products/', { headers: { authorization: `DPoP ${jwtShaped('dpopJwtToken')}`, dpop: jwtShaped('dpopJwtProof') } }],
      ['/v1/auth/token', { method: 'POST', headers: { 'content-type': form }, body: tokenForm(secret('assertion')) }],
      ['/v1/auth/token', { method: 'POST', headers: { 'content-type': form, dpop: jwtShaped('tokenDpop') }, body: tokenForm(jwtShaped('assertionJwt')) }],
      ['/v1/auth/token', { method: 'POST', headers: { 'content-type': form, authorization: `Basic ${secret('basic')}` }, body: tokenForm(secret('assertionBasic')) }],
      ['/v1/auth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_assertion: secret('assertionJson') }) }],
      // Credentials misplaced in the URL, and personal data in a filter, are not logged either.
      [`/v1/auth/token?client_assertion=${secret('assertionQuery')}`, { method: 'POST', headers: { 'content-type': form }, body: tokenForm(secret('assertionBody')) }],
      [`/v1/products/?access_token=${secret('queryToken')}&page=2`, {}],
      [`/v1/users/?email=${secret('email')}%40example.com&per_page=5`, { headers: { authorization: `Bearer ${secret('bearer2')}` } }],
    ];
    const requestIds: string[] = [];
    for (const [path, init] of sends) {
      const res = await fetch(`${server.origin}${path}`, init);
      requestIds.push(String(res.headers.get('x-request-id')));
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
      await res.arrayBuffer();
    }
    const completed = () =>
      new Set(
        logLines(server.stdout())
          .filter((line) => line.msg === 'request completed')
          .map((line) => line.reqId),
      );
    await until(() => requestIds.every((id) => completed().has(id)), 'the request logs');
    // The requests were logged, just without their secrets.
    expect(server.stdout()).toContain('/v1/auth/token');
    expect(server.stdout()).toContain('/v1/products/?access_token=[redacted]&page=2');
    expect(server.stdout()).toContain('/v1/users/?email=[redacted]&per_page=5');
    expect(server.stdout()).not.toContain(marker);
    expect(server.stderr()).not.toContain(marker);
  }, 30_000);

  it('on SIGTERM finishes the request in flight, refuses new connections and exits 0', async () => {
    const body = tokenForm('not.a.jwt');
    const half = Math.floor(body.length / 2);
    // A request whose body is still arriving: it is in flight when the signal comes.
    const inFlight = request(`${server.origin}/v1/auth/token?page=901`, { method: 'POST', agent: false, headers: { 'content-type': form, 'content-length': String(Buffer.byteLength(body)) } });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      inFlight.on('response', (res: IncomingMessage) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      inFlight.on('error', reject);
    });
    inFlight.write(body.slice(0, half));
    await until(() => sawRequest(server.stdout(), '/v1/auth/token?page=901'), 'the server to see the request');

    server.child.kill('SIGTERM');
    await until(() => server.stdout().includes('shutting down'), 'the shutdown to begin');
    await expect(fetch(`${server.origin}/health`)).rejects.toThrow();

    inFlight.end(body.slice(half));
    const response = await answered;
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text)).toMatchObject({ error: 'invalid_client' });

    expect(await server.exited).toBe(0);
    const messages = logLines(server.stdout()).map((line) => line.msg);
    expect(messages).toContain('shutdown complete');
    expect(logLines(server.stdout()).find((line) => line.msg?.startsWith('shutting down'))).toMatchObject({ signal: 'SIGTERM' });
    expect(messages.indexOf('shutdown complete')).toBeGreaterThan(messages.lastIndexOf('request completed'));
    await expect(fetch(`${server.origin}/health`)).rejects.toThrow();
  }, 30_000);
});

describe('the real server process with a request that never finishes', () => {
  it('gives up after SHUTDOWN_GRACE_MS and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'booking-server-'));
    const server = startServer(await freePort(), { DATA_DIR: dir, SHUTDOWN_GRACE_MS: '300', LOG_LEVEL: 'debug' });
    try {
      await server.waitReady();
      const stuck = request(`${server.origin}/v1/auth/token?page=902`, { method: 'POST', agent: false, headers: { 'content-type': form, 'content-length': '1000' } });
      stuck.on('error', () => undefined);
      stuck.write('grant_type=');
      await until(() => sawRequest(server.stdout(), '/v1/auth/token?page=902'), 'the server to see the request');
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(1);
      expect(logLines(server.stdout()).map((line) => line.msg)).toContain('grace period over; exiting with requests still open');
      stuck.destroy();
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
