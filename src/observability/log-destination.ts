import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';

/** Where the service's log lines go: stdout, written asynchronously in batches. */
export type LogDestination = ReturnType<typeof pino.destination>;

/** Lines are gathered until this many bytes, then written in one `write(2)` off the main thread. */
const batchBytes = 4096;
/** The longest a line waits for its batch when traffic is low. */
const flushIntervalMs = 250;
/** Beyond this many unwritten bytes (a stalled reader of stdout) new lines are dropped rather than held. */
const maxPendingBytes = 16 * 1024 * 1024;
/** The longest an exit waits for the last lines. */
const exitWaitMs = 2000;

/**
 * pino's asynchronous destination on file descriptor `fd` (stdout): a request's line is
 * appended to a buffer instead of costing a synchronous `write(2)`. Lines still buffered
 * when the process exits are written by pino's own exit hook; {@link exitAfterLogs} also
 * waits for a write already handed to the thread pool.
 */
export function logDestination(fd = 1): LogDestination {
  return pino.destination({ dest: fd, sync: false, minLength: batchBytes, maxLength: maxPendingBytes, periodicFlush: flushIntervalMs });
}

/** Resolves once every line written so far has reached the file descriptor, or after `waitMs` on a stalled one. */
export function flushLogs(destination: LogDestination, waitMs = exitWaitMs): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    // The callback's error is fsync's, which pipes and terminals refuse: the lines are written either way.
    destination.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Exits with `code` once the lines logged so far are written. */
export function exitAfterLogs(destination: LogDestination, code: number): void {
  void flushLogs(destination).then(() => process.exit(code));
}

/**
 * An uncaught exception (or an unhandled rejection, which Node raises as one) is logged
 * at `fatal` with its stack, after every line before it, and the process exits 1, instead
 * of Node printing the stack and exiting with lines still buffered. The lines are flushed
 * first because pino writes a `fatal` line synchronously, ahead of a write still queued.
 */
export function exitOnFatalError(log: FastifyBaseLogger, destination: LogDestination): void {
  let exiting = false;
  process.on('uncaughtException', (error, origin) => {
    if (exiting) {
      log.error({ err: error, origin }, 'uncaught exception while exiting');
      return;
    }
    exiting = true;
    void flushLogs(destination).then(() => {
      log.fatal({ err: error, origin }, 'uncaught exception: exiting');
      process.exit(1);
    });
  });
}
