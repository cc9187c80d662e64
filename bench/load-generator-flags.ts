/**
 * The benchmark process is the load generator, and its own garbage collector must not add
 * to the latencies it records. V8 pretenures an allocation site (allocates its objects
 * straight in the old generation) once most of them outlive a scavenge. `book-contended`
 * does that to autocannon's per-request objects: 100 connections each wait seconds for
 * the product lock. The decision sticks, so in every later scenario of the run each
 * response is copied by the young collection, whose pauses grow tenfold, and those pauses
 * show up as the next scenarios' p99 (docs/benchmarks-history.md "The benchmark itself").
 *
 * `npm run bench` therefore starts this process with pretenuring off. The flag is on this
 * process's command line only: the service and the reference servers are separate
 * processes started with their own defaults.
 */
export const loadGeneratorNodeFlags = ['--no-allocation-site-pretenuring'] as const;

/** The flags this process lacks (started some other way than `npm run bench`). */
export function missingLoadGeneratorFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return loadGeneratorNodeFlags.filter((flag) => !execArgv.includes(flag));
}
