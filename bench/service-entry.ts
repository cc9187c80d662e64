import { readFileSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import start from '../src/start.cjs';
import { repoRoot } from './child-process.js';

/** How to start the service: the script, the node flags and the environment it needs. */
export interface ServiceEntry {
  readonly script: string;
  readonly execArgv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** What the report says was run. */
  readonly label: string;
  /** Whether that is the build `npm start` runs; else the sources through tsx (whose compiler stays resident). */
  readonly built: boolean;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (/\.c?ts$/.test(name)) newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
  }
  return newest;
}

/** The node flags of `npm start` (package.json), so the benchmark runs the service as shipped. */
function startFlags(root: string): string[] {
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  return (scripts.start ?? '').split(/\s+/).filter((word) => word.startsWith('--'));
}

/**
 * The built `dist/src/start.cjs` (what `npm start` runs, with its node flags) when it is newer than every file
 * under src/, else the sources through tsx: a stale build would measure code that is no
 * longer there. tsx starts libuv's pool before `start.cts` could size it, so that path
 * gets the size `start.cts` would choose through the environment. `root` is the checkout
 * whose service runs (this one unless `--service` names another).
 */
export function serviceEntry(profileDir: string | null, root = repoRoot): ServiceEntry {
  const profile = profileDir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)];
  const where = root === repoRoot ? '' : ` in ${resolve(root)}`;
  const built = join(root, 'dist/src/start.cjs');
  try {
    if (statSync(built).mtimeMs >= newestMtime(join(root, 'src')))
      return { script: built, execArgv: [...startFlags(root), ...profile], env: {}, label: `node ${[...startFlags(root), 'dist/src/start.cjs'].join(' ')}${where}`, built: true };
  } catch {
    // not built
  }
  const env = { UV_THREADPOOL_SIZE: start.threadPoolSize(process.env.UV_THREADPOOL_SIZE, availableParallelism()) };
  return { script: join(root, 'src/main.ts'), execArgv: [...startFlags(root), '--import', 'tsx', ...profile], env, label: `src/main.ts (tsx)${where}`, built: false };
}
