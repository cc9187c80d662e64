import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, chownSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { memoryTempDir } from './memory-temp-dir.js';
import { postgresBinDir } from './system-binaries.js';

/**
 * A throwaway PostgreSQL cluster for the test run: initdb into a temp dir, start on a free
 * port, hand out its URL, remove everything at the end. The programs come from the PATH or
 * Debian's /usr/lib/postgresql/<version>/bin. PostgreSQL refuses to run as root, so as root
 * the server runs as the `postgres` user. A missing server is a loud failure.
 */
export interface Cluster {
  readonly url: string;
  /** Stops the server as an operator would (`pg_ctl stop -m fast`), keeping its data. */
  halt(): Promise<void>;
  /** Starts the halted server again on the same port and data. */
  resume(): Promise<void>;
  stop(): void;
}

/** Room the cluster needs in memory: about 1.5 GB at the end of `npm test`, with headroom. */
const clusterNeedsBytes = 4 * 1024 ** 3;

export async function startCluster(): Promise<Cluster> {
  const bin = postgresBinDir();
  if (!bin) {
    throw new Error('PostgreSQL tests need initdb, pg_ctl and postgres (on the PATH or in /usr/lib/postgresql/*/bin; Debian package postgresql); refusing to skip them silently.');
  }
  const asRoot = process.getuid?.() === 0;
  const dir = memoryTempDir('booking-pg-', clusterNeedsBytes);
  const dataDir = join(dir, 'data');
  const port = await freePort();
  const command = (program: string, args: string[]): [string, string[]] => {
    const path = join(bin, program);
    return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  };
  const run = (program: string, args: string[]) => {
    const [file, argv] = command(program, args);
    execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  // While the test process waits for these, its own requests keep flowing.
  const runAsync = async (program: string, args: string[]) => {
    const [file, argv] = command(program, args);
    await promisify(execFile)(file, argv, { cwd: dir });
  };
  if (asRoot) {
    chmodSync(dir, 0o755);
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  const startArgs = ['-D', dataDir, '-o', options, '-l', join(dir, 'server.log'), '-w', 'start'];
  run('pg_ctl', startArgs);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    halt: () => runAsync('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']),
    resume: () => runAsync('pg_ctl', startArgs),
    stop() {
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already halted.
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
