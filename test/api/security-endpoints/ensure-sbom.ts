import { execFileSync } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Absolute path of the generated SBOM. */
export const sbomFile = fileURLToPath(new URL('../../../generated/sbom.cdx.json', import.meta.url));

/**
 * `npm test` generates the SBOM in `pretest`; running vitest directly on a clean clone has
 * not, so generate it here with the same script (the server itself never does). Written
 * aside and renamed, so a test file running in parallel never reads half a document.
 */
export function ensureSbom(): void {
  if (existsSync(sbomFile)) return;
  const temp = `${sbomFile}.${process.pid}.tmp`;
  // A repeated --output-file wins over the script's own (commander keeps the last value).
  execFileSync('npm', ['run', '--silent', 'sbom', '--', '--output-file', temp], { cwd: root, stdio: 'pipe' });
  renameSync(temp, sbomFile);
}
