/**
 * The service on several cores: a node:cluster primary that forks BENCH_WORKERS copies of
 * the service entry (BENCH_ENTRY, with BENCH_EXEC_ARGV as JSON) sharing one port. Workers
 * share the database (SQLite in WAL mode, or PostgreSQL) and the signing keys in DATA_DIR;
 * each keeps its own token cache. SIGTERM is passed on to every worker.
 */
import cluster from 'node:cluster';

const count = Number(process.env.BENCH_WORKERS ?? '2');
const entry = process.env.BENCH_ENTRY;
const execArgv = JSON.parse(process.env.BENCH_EXEC_ARGV ?? '[]') as string[];
if (!entry || !Number.isInteger(count) || count < 1) throw new Error('BENCH_ENTRY and BENCH_WORKERS (>= 1) are required');

cluster.setupPrimary({ exec: entry, execArgv });
let stopping = false;
for (let i = 0; i < count; i += 1) cluster.fork();

cluster.on('exit', (worker, code, signal) => {
  if (!stopping) {
    console.error(`worker ${worker.process.pid} ended (${signal ?? code}); stopping the cluster`);
    stop(1);
  }
  if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(process.exitCode ?? 0);
});

function stop(code: number): void {
  stopping = true;
  process.exitCode = code;
  for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
}

process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));
