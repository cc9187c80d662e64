import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Name and version of the service, from its `package.json`. */
export interface PackageInfo {
  readonly name: string;
  readonly version: string;
  /** The directory holding `package.json` (the checkout or the deployed image's app dir). */
  readonly root: string;
}

let cached: PackageInfo | undefined;

/**
 * Finds the service's `package.json` by walking up from this module, which works the same
 * from `src/` (tsx, tests) and from `dist/src/` (the build). Read once per process.
 */
export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      cached = Object.freeze({ name: String(parsed.name ?? 'unknown'), version: String(parsed.version ?? '0.0.0'), root: dir });
      return cached;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the service code');
    dir = parent;
  }
}
