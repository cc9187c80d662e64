/**
 * A process that logs like the server (`logDestination`, `exitOnFatalError`,
 * `exitAfterLogs`) while libuv's thread pool is busy, so its asynchronous log writes are
 * still queued when it ends: `LINES` info lines, then, by `END`: `throw` (an uncaught
 * exception), `reject` (an unhandled rejection) or `exit` (a graceful exit with code 0).
 * Run by test/api/ops/log-exit.test.ts with stdout redirected to a file.
 */
import { pbkdf2 } from 'node:crypto';
import pino from 'pino';
import { exitAfterLogs, exitOnFatalError, logDestination } from '../../src/observability/log-destination.js';

const lines = Number(process.env.LINES ?? 2000);
const end = process.env.END ?? 'throw';
const destination = logDestination();
const log = pino({ level: 'info' }, destination);
exitOnFatalError(log, destination);

// Every pool thread busy for a while: the first batch's write(2) waits behind them.
const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
await new Promise<void>((resolve) => {
  for (let i = 0; i < threads; i++) pbkdf2('secret', 'salt', 60_000, 64, 'sha512', () => undefined);
  setImmediate(resolve);
});
for (let i = 0; i < lines; i++) log.info({ line: i }, 'request completed');
if (end === 'exit') exitAfterLogs(destination, 0);
else if (end === 'reject') void Promise.reject(new Error('unhandled in the fixture'));
else
  setImmediate(() => {
    throw new Error('uncaught in the fixture');
  });
