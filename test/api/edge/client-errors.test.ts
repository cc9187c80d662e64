import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';

/**
 * What Node's HTTP parser refuses before a request exists still answers as an RFC 9457
 * problem (not Fastify's own JSON), over a real socket, and closes the connection.
 */
describe('errors before a request is parsed', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await createHarness('sqlite');
    port = Number(new URL(await h.app.server.listen({ host: '127.0.0.1', port: 0 })).port);
  });
  afterAll(() => h.close());

  /** Writes `raw` on a fresh connection and reads everything until the server closes it. */
  function exchange(raw: string): Promise<{ status: number; headers: string; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(raw));
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (received += chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        // The parser's answer is the only one on the connection.
        const [head = '', body = ''] = received.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
      });
    });
  }

  it('answers headers over the size limit with 431 problem+json', async () => {
    const answer = await exchange(`GET /v1/products?x=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(answer.headers).toContain('content-type: application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 431, code: 'headers_too_large', instance: '/', type: expect.stringContaining('headers-too-large') });
  });

  it('answers bytes that are not HTTP with 400 problem+json', async () => {
    const garbage = await exchange('THIS IS NOT HTTP\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(garbage.headers).toContain('content-type: application/problem+json');
    expect(garbage.headers).toContain('connection: close');
    expect(JSON.parse(garbage.body)).toMatchObject({ status: 400, code: 'malformed_request' });
  });
});
