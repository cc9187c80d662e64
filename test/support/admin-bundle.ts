import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { repoRoot } from './run-cli.js';

let built: Promise<string> | undefined;

/** The administration console built from the working tree into a temp dir (once per test file). */
export function adminBundle(): Promise<string> {
  built ??= (async () => {
    const outDir = join(mkdtempSync(join(tmpdir(), 'booking-admin-')), 'admin');
    await build({ configFile: join(repoRoot, 'admin/vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
    return outDir;
  })();
  return built;
}
