import { setFlagsFromString } from 'node:v8';

/** The bound `main` applies on PostgreSQL: a full collection once the old generation is 3× what survived the last one. */
export const postgresHeapGrowth = '--heap-growing-percent=200';

/** Whether the operator already chose the old generation's growth (a node flag or `NODE_OPTIONS`). */
function chosenByOperator(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg));
}

/**
 * Bounds how far V8 lets the old generation grow between full collections when the service
 * runs on PostgreSQL, unless the operator set it. Every request there waits on the database,
 * so the requests in flight at each young collection survive it and are promoted as garbage;
 * V8 let the heap reach 210–227 MB under list or export load before collecting it (up to 4×
 * what survived the last full collection). At 3× the peak stays under 195 MB at the same CPU
 * per request. On SQLite reads finish without waiting, little is promoted, and the bound
 * would only add full collections (get-bearer ~8 % more CPU), so it is left to V8.
 * The flag is read when V8 sizes the heap after each collection, so setting it at start-up,
 * before any load, takes effect (BENCHMARKS.md, 2026-11-25). Returns the flag it set.
 */
export function boundHeapGrowth(
  storage: 'sqlite' | 'postgres',
  runtime: { readonly execArgv: readonly string[]; readonly env: NodeJS.ProcessEnv } = process,
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  if (storage !== 'postgres' || chosenByOperator(runtime.execArgv, runtime.env.NODE_OPTIONS)) return undefined;
  setFlags(postgresHeapGrowth);
  return postgresHeapGrowth;
}
