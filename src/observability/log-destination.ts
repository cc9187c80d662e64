import pino from 'pino';
import type { DestinationStream } from 'pino';
import type { FastifyBaseLogger } from 'fastify';

/** Lines are gathered until about this many characters, then handed on in one write. */
const batchChars = 16_384;
/** The longest a line waits for its batch when traffic is low. */
const flushIntervalMs = 250;
/** Beyond this many unwritten bytes (a stalled reader of stdout) new lines are dropped rather than held. */
const maxPendingBytes = 16 * 1024 * 1024;
/** The longest an exit waits for the last lines. */
const exitWaitMs = 2000;

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Where the service's log lines go: pino's asynchronous destination (sonic-boom, every
 * `write(2)` on libuv's thread pool), fed in batches. The batching is done here because
 * sonic-boom measures the byte length of everything it holds on each write, so holding
 * lines there costs each line in proportion to the buffer. Lines still held when the
 * process exits are written synchronously by an exit hook (pino registers one for
 * sonic-boom, this class one for its batch); {@link exitAfterLogs} waits for writes
 * already handed to the thread pool, which an exit hook cannot.
 */
export class LogDestination implements DestinationStream {
  #batch = '';
  #timer: NodeJS.Timeout | undefined;
  readonly #target: SonicBoom;

  constructor(fd = 1) {
    // minLength 1 writes as soon as anything is held (as 0 would) but makes flush() wait for writes in flight.
    this.#target = pino.destination({ dest: fd, sync: false, minLength: 1, maxLength: maxPendingBytes });
    process.on('exit', () => this.flushSync());
  }

  write(line: string): void {
    this.#batch += line;
    if (this.#batch.length >= batchChars) this.#handOn();
    else this.#timer ??= setTimeout(() => this.#handOn(), flushIntervalMs).unref();
  }

  /** Calls `done` once every line written so far has reached the file descriptor. */
  flush(done: () => void): void {
    this.#handOn();
    // The callback's error is fsync's, which pipes and terminals refuse: the lines are written either way.
    this.#target.flush(() => done());
  }

  /** Writes what is held synchronously (pino calls it after a `fatal` line). */
  flushSync(): void {
    this.#handOn();
    try {
      this.#target.flushSync();
    } catch {
      // Nothing held, or the descriptor is gone: nothing more can be written.
    }
  }

  #handOn(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#batch === '') return;
    const batch = this.#batch;
    this.#batch = '';
    this.#target.write(batch);
  }
}

/** The service's log destination on `fd` (stdout). */
export function logDestination(fd = 1): LogDestination {
  return new LogDestination(fd);
}

/** Resolves once every line written so far has reached the file descriptor, or after `waitMs` on a stalled one. */
export function flushLogs(destination: LogDestination, waitMs = exitWaitMs): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, waitMs);
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
