import { Agent, createServer, request } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionDrain } from '../../../src/http/connection-drain.js';

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: string;
}

/** A server whose responses the test finishes: each request waits in `pending`. */
function heldServer(): { server: Server; pending: ServerResponse[] } {
  const pending: ServerResponse[] = [];
  const server = createServer((_request, response) => void pending.push(response));
  return { server, pending };
}

function get(agent: Agent, port: number): Promise<Answer> {
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

describe('connectionDrain', () => {
  const agents: Agent[] = [];
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

  function keepAliveAgent(): Agent {
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    return agent;
  }

  it('lets server.close() finish once in-flight keep-alive responses are sent, each marked Connection: close', async () => {
    const { server, pending } = heldServer();
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
    const { server, pending } = heldServer();
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

  it('without a drain, a keep-alive connection stays open after its response', async () => {
    const { server, pending } = heldServer();
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
