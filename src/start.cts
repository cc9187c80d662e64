/**
 * The process entry of `npm start`: sizes libuv's thread pool, then boots `main.ts`.
 *
 * WebCrypto runs every signature and verification on libuv's pool. libuv's default of 4
 * threads on a 2-core machine crowds out the main thread, which parses, routes and answers
 * every request (docs/benchmarks-history.md "Token issuance"). libuv reads
 * `UV_THREADPOOL_SIZE` once, when the pool first starts, and loading ES modules already
 * starts it; this file is CommonJS so that it runs before any of that.
 */
import os = require('node:os');

/** The operator's `UV_THREADPOOL_SIZE` if set, else one thread per core (at least 2). */
function threadPoolSize(configured: string | undefined, cores: number): string {
  return configured === undefined || configured.trim() === '' ? String(Math.max(2, cores)) : configured;
}

if (require.main === module) {
  process.env.UV_THREADPOOL_SIZE = threadPoolSize(process.env.UV_THREADPOOL_SIZE, os.availableParallelism());
  // main.ts reports its own start-up failures; this catches a module that cannot even load.
  import('./main.js').catch((error: unknown) => {
    console.error('startup failed:', error);
    process.exitCode = 1;
  });
}

export = { threadPoolSize };
