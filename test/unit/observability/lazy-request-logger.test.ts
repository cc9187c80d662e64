import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger } from '../../../src/observability/lazy-request-logger.js';
import { RequestLogController } from '../../../src/observability/log-controller.js';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly reqId?: string;
  readonly marker?: string;
}

/** A server logging like the service (request id per request, one completion line) into `lines`. */
async function server(level: string) {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Line);
      done();
    },
  });
  let ids = 0;
  const app = Fastify({ logger: { level, stream }, logController: new RequestLogController(), childLoggerFactory: lazyChildLogger, genReqId: () => `req-${++ids}` });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/warns', async (request) => {
    request.log.warn({ marker: 'handler' }, 'something to look at');
    request.log.child({ marker: 'nested' }).warn('from a child');
    return { ok: true };
  });
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  await app.ready();
  return { app, lines };
}

describe('request loggers are made only when a line is written', () => {
  it('at info: one completion line per request, with its request id', async () => {
    const { app, lines } = await server('info');
    await app.inject({ url: '/quiet' });
    await app.inject({ url: '/quiet' });
    expect(lines.filter((l) => l.msg === 'request completed').map((l) => l.reqId)).toEqual(['req-1', 'req-2']);
    expect(lines.some((l) => l.msg === 'request received')).toBe(false);
    await app.close();
  });

  it('at warn: nothing for a quiet request; a warning and a failure carry the request id', async () => {
    const { app, lines } = await server('warn');
    await app.inject({ url: '/quiet' });
    expect(lines).toEqual([]);
    await app.inject({ url: '/warns' });
    expect(lines.map((l) => [l.msg, l.reqId, l.marker])).toEqual([
      ['something to look at', 'req-2', 'handler'],
      ['from a child', 'req-2', 'nested'],
    ]);
    const failed = await app.inject({ url: '/fails' });
    expect(failed.statusCode).toBe(500);
    expect(lines.filter((l) => l.level >= 50).map((l) => l.reqId)).toContain('req-3');
    await app.close();
  });

  it('at debug: the arrival line is written too', async () => {
    const { app, lines } = await server('debug');
    app.log.level = 'debug';
    await app.inject({ url: '/quiet' });
    expect(lines.map((l) => [l.msg, l.reqId])).toEqual([
      ['request received', 'req-1'],
      ['request completed', 'req-1'],
    ]);
    await app.close();
  });
});
