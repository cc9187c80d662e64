import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectionDrain } from '../../../src/http/connection-drain.js';

/** A throwaway self-signed certificate for the HTTPS runs. */
let tls: { key: Buffer; cert: Buffer };
let certDir: string;
beforeAll(() => {
  certDir = mkdtempSync(join(tmpdir(), 'drain-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      join(certDir, 'key.pem'),
      '-out',
      join(certDir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  tls = { key: readFileSync(join(certDir, 'key.pem')), cert: readFileSync(join(certDir, 'cert.pem')) };
});
afterAll(() => rmSync(certDir, { recursive: true, force: true }));

type Scheme = 'http' | 'https';

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: string;
}

/** A server whose responses the test finishes: each request waits in `pending`. */
function heldServer(scheme: Scheme): { server: Server; pending: ServerResponse[] } {
  const pending: ServerResponse[] = [];
  const hold = (_request: IncomingMessage, response: ServerResponse) => void pending.push(response);
  const server = scheme === 'https' ? https.createServer(tls, hold) : http.createServer(hold);
  return { server, pending };
}

function get(agent: http.Agent, port: number): Promise<Answer> {
  const request = agent instanceof https.Agent ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res: IncomingMessage) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe.each<Scheme>(['http', 'https'])('connectionDrain over %s', (scheme) => {
  const agents: http.Agent[] = [];
  const servers: Server[] = [];
  afterEach(() => {
    for (const agent of agents.splice(0)) agent.destroy();
    for (const server of servers.splice(0)) server.closeAllConnections();
  });

  async function listening(server: Server): Promise<number> {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  function keepAliveAgent(): http.Agent {
    const agent = scheme === 'https' ? new https.Agent({ keepAlive: true, rejectUnauthorized: false }) : new http.Agent({ keepAlive: true });
    agents.push(agent);
    return agent;
  }

  it('lets server.close() finish once in-flight keep-alive responses are sent, each marked Connection: close', async () => {
    const { server, pending } = heldServer(scheme);
    const drain = connectionDrain(server);
    const port = await listening(server);
    const agent = keepAliveAgent();
    const answers = [get(agent, port), get(agent, port)];
    await until(() => pending.length === 2);

    let closed = false;
    drain.drain();
    server.close(() => (closed = true));
    for (const response of pending) response.end('done');

    expect(await Promise.all(answers)).toEqual([
      { status: 200, connection: 'close', body: 'done' },
      { status: 200, connection: 'close', body: 'done' },
    ]);
    await until(() => closed);
  });

  it('closes the connection of a response that was already streaming when the drain began', async () => {
    const { server, pending } = heldServer(scheme);
    const drain = connectionDrain(server);
    const port = await listening(server);
    const answer = get(keepAliveAgent(), port);
    await until(() => pending.length === 1);
    const response = pending[0] as ServerResponse;
    response.write('first part, ');
    expect(response.headersSent).toBe(true);

    let closed = false;
    drain.drain();
    server.close(() => (closed = true));
    response.end('last part');

    // The header promised keep-alive; the connection is closed after the response all the same.
    expect(await answer).toEqual({ status: 200, connection: 'keep-alive', body: 'first part, last part' });
    await until(() => closed);
  });

  it('marks a response Connection: close when its request arrives on a kept-alive connection after the drain began', async () => {
    const { server, pending } = heldServer(scheme);
    const drain = connectionDrain(server);
    const port = await listening(server);
    const agent = keepAliveAgent();
    const first = get(agent, port);
    await until(() => pending.length === 1);
    const finished = new Promise((resolve) => (pending[0] as ServerResponse).once('finish', () => setImmediate(resolve)));
    (pending[0] as ServerResponse).end('first');
    expect(await first).toMatchObject({ connection: 'keep-alive' });
    // The connection is idle now (a drain would close a busy one as its response finished).
    await finished;

    drain.drain();
    const second = get(agent, port);
    await until(() => pending.length === 2);
    (pending[1] as ServerResponse).end('second');
    expect(await second).toEqual({ status: 200, connection: 'close', body: 'second' });
  });

  it('without a drain, a keep-alive connection stays open after its response', async () => {
    const { server, pending } = heldServer(scheme);
    connectionDrain(server);
    const port = await listening(server);
    const answer = get(keepAliveAgent(), port);
    await until(() => pending.length === 1);
    server.close();
    (pending[0] as ServerResponse).end('done');
    expect(await answer).toMatchObject({ connection: 'keep-alive' });
    // No timing: the server still counts the idle connection as open.
    const open = await new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    expect(open).toBe(1);
  });
});
