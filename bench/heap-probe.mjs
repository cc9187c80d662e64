/**
 * Loaded into the benchmark's service process only (`--expose-gc --import`, see
 * bench/settled-memory.ts): on SIGUSR2 it runs a full garbage collection and writes what
 * is left (resident set and V8 heap in use) to `<tmpdir>/bench-heap-<pid>.json`. The
 * memory target is judged on that figure: live memory, not garbage V8 had no reason to
 * collect yet. Plain JavaScript, so the built service (`node dist/src/start.cjs`) loads it
 * without tsx. The service itself sets no V8 flag and exposes no `gc`.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';

const collect = globalThis.gc;
const pause = () => new Promise((resolve) => setTimeout(resolve, 250));

if (typeof collect === 'function') {
  /** Two collections a pause apart, then the heap figures written for the benchmark to read. */
  const measure = async () => {
    // V8 returns freed pages to the system from a background thread after the collection;
    // the second round finds what the first one's finalizers let go.
    collect();
    await pause();
    collect();
    await pause();
    const heap = getHeapStatistics();
    const file = join(tmpdir(), `bench-heap-${process.pid}.json`);
    // Written aside and renamed: the benchmark never reads half a file.
    writeFileSync(`${file}.part`, JSON.stringify({ rss: process.memoryUsage.rss(), heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size }));
    renameSync(`${file}.part`, file);
  };
  // A failed write surfaces as the process's unhandled rejection, as before.
  process.on('SIGUSR2', () => void measure());
}
