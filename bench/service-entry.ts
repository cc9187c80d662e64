import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from './child-process.js';

/** How to start `src/main.ts`: the script and the node flags it needs. */
export interface ServiceEntry {
  readonly script: string;
  readonly execArgv: readonly string[];
  /** What the report says was run. */
  readonly label: string;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (name.endsWith('.ts')) newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
  }
  return newest;
}

/**
 * The built `dist/src/main.js` when it is newer than every file under src/ (the compiled
 * service is what production runs), else the sources through tsx: a stale build would
 * measure code that is no longer there.
 */
export function serviceEntry(profileDir: string | null): ServiceEntry {
  const profile = profileDir === null ? [] : ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)];
  const built = join(repoRoot, 'dist/src/main.js');
  try {
    if (statSync(built).mtimeMs >= newestMtime(join(repoRoot, 'src'))) return { script: built, execArgv: profile, label: 'dist/src/main.js' };
  } catch {
    // not built
  }
  return { script: join(repoRoot, 'src/main.ts'), execArgv: ['--import', 'tsx', ...profile], label: 'src/main.ts (tsx)' };
}
