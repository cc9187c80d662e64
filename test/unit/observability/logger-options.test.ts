import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { lazyChildLogger } from '../../../src/observability/lazy-request-logger.js';
import { RequestLogController } from '../../../src/observability/log-controller.js';
import { loggerOptions, redactedPaths } from '../../../src/observability/logger-options.js';

/** A server with the service's logger options, writing its lines into `lines`. */
async function server() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({ LOG_LEVEL: 'info', DATA_DIR: '/nonexistent', PUBLIC_URL: 'http://127.0.0.1:1' });
  const app = Fastify({ logger: loggerOptions(config, stream), logController: new RequestLogController(), childLoggerFactory: lazyChildLogger, genReqId: () => 'req-1' });
  app.get('/v1/calendars/:file', async () => 'BEGIN:VCALENDAR');
  app.post('/v1/auth/token', async (request) => {
    // What careless code might log: the request itself, its headers and body, an assertion.
    request.log.info({ req: request }, 'the request');
    request.log.info({ req: { headers: request.headers, body: request.body } }, 'a request-shaped object');
    request.log.info({ client_assertion: 'assertion-secret' }, 'an assertion');
    return { ok: true };
  });
  await app.ready();
  return { app, lines };
}

describe('the service logger', () => {
  it('writes one completion line per request: method, scrubbed URL, host, peer, status, time and request id', async () => {
    const { app, lines } = await server();
    await app.inject({ method: 'POST', url: '/v1/auth/token?page=2&client_assertion=query-secret', payload: { grant_type: 'client_credentials' } });
    const completed = lines.find((line) => line.msg === 'request completed');
    expect(completed).toMatchObject({
      level: 30,
      reqId: 'req-1',
      req: { method: 'POST', url: '/v1/auth/token?page=2&client_assertion=[redacted]', host: 'localhost:80', remoteAddress: '127.0.0.1' },
      res: { statusCode: 200 },
    });
    expect(typeof completed?.responseTime).toBe('number');
    await app.close();
  });

  it('never writes a calendar feed secret: the path is its credential (docs/calendars.md "Export")', async () => {
    const { app, lines } = await server();
    const secret = 'Zk3aN8cQ0p1v2r3t4x5y6z7A8B9C0D1E2F3G4H5I6J7';
    await app.inject({ method: 'GET', url: `/v1/calendars/${secret}.ics?t=1` });
    const completed = lines.find((line) => line.msg === 'request completed');
    expect(completed).toMatchObject({ req: { url: '/v1/calendars/[redacted]?t=[redacted]' } });
    expect(JSON.stringify(lines)).not.toContain(secret);
    await app.close();
  });

  it('never writes the members the security posture lists, however they are logged', async () => {
    const { app, lines } = await server();
    await app.inject({
      method: 'POST',
      url: '/v1/auth/token',
      headers: { authorization: 'Bearer bearer-secret', dpop: 'dpop-secret', cookie: 'session=cookie-secret' },
      payload: { client_assertion: 'body-secret' },
    });
    expect(redactedPaths).toEqual(['req.headers.authorization', 'req.headers.dpop', 'req.headers.cookie', 'req.body.client_assertion', 'client_assertion']);
    const written = JSON.stringify(lines);
    for (const secret of ['bearer-secret', 'dpop-secret', 'cookie-secret', 'body-secret', 'assertion-secret']) expect(written).not.toContain(secret);
    expect(lines.find((line) => line.msg === 'an assertion')).toMatchObject({ client_assertion: '[redacted]' });
    // A request, or anything logged as one, is written as these members at most.
    const members = new Set(lines.flatMap((line) => Object.keys((line.req as object | undefined) ?? {})));
    expect([...members].every((member) => ['method', 'url', 'host', 'remoteAddress', 'remotePort'].includes(member))).toBe(true);
    expect(lines.filter((line) => line.req !== undefined).length).toBe(3);
    await app.close();
  });
});
