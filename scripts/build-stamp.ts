/**
 * Lets `npm start` skip the build when nothing it reads has changed.
 *
 * `npm run build` (tsc, plus the SBOM from package-lock.json) takes about 10 s; a restart
 * with an unchanged tree should not pay it. The stamp is a SHA-256 over the path and
 * contents of every build input. `prebuild` runs `begin` (drops the old stamp, notes the
 * inputs as they are before compiling), `postbuild` runs `finish` (the build succeeded: the
 * noted digest becomes the stamp) and `prestart` runs `current || npm run build`. Contents,
 * not mtimes: a checkout or copy that touches files without changing them costs nothing,
 * and an edit made during a build is caught at the next start.
 *
 * Usage: tsx scripts/build-stamp.ts begin|finish|current [root]
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Directories whose every file is a build input. */
export const inputDirs = ['src', 'cli', 'admin'] as const;
/** Single files that are build inputs (compiler settings, dependencies for the SBOM). */
export const inputFiles = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'] as const;
/** What `npm start` needs from a build; if one is missing the stamp does not count. */
export const outputs = ['dist/src/start.cjs', 'dist/src/main.js', 'dist/admin/index.html', 'generated/sbom.cdx.json'] as const;

const stampFile = 'dist/.build-stamp';
const pendingFile = 'dist/.build-stamp.next';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** SHA-256 over the relative path and contents of every build input under `root`. */
export function inputDigest(root: string): string {
  const paths = [...inputDirs.flatMap((dir) => filesUnder(join(root, dir))), ...inputFiles.map((file) => join(root, file)).filter((path) => existsSync(path))];
  const hash = createHash('sha256');
  for (const path of paths.map((p) => relative(root, p).split(sep).join('/')).sort()) {
    const contents = readFileSync(join(root, path));
    // Lengths delimit the fields, so no two different trees hash the same bytes.
    hash.update(`${path.length}:${path}:${contents.length}:`).update(contents);
  }
  return hash.digest('hex');
}

/** Before compiling: forget the old stamp and note the inputs being built. */
export function beginBuild(root: string): void {
  mkdirSync(join(root, 'dist'), { recursive: true });
  rmSync(join(root, stampFile), { force: true });
  writeFileSync(join(root, pendingFile), `${inputDigest(root)}\n`);
}

/** After a successful build: the inputs noted by `beginBuild` are what `dist` holds. */
export function finishBuild(root: string): void {
  renameSync(join(root, pendingFile), join(root, stampFile));
}

/** Why `npm start` must build first, or `undefined` when the last successful build was of exactly the current inputs. */
export function staleReason(root: string): string | undefined {
  const missing = outputs.find((output) => !existsSync(join(root, output)));
  if (missing) return `no build yet (${missing} is missing)`;
  let stamp: string;
  try {
    stamp = readFileSync(join(root, stampFile), 'utf8').trim();
  } catch {
    return 'no finished build recorded';
  }
  return stamp === inputDigest(root) ? undefined : 'sources changed since the last build';
}

/** Whether the last successful build was of exactly the current inputs and its outputs are all there. */
export function buildIsCurrent(root: string): boolean {
  return staleReason(root) === undefined;
}

// Run as a script (either path may go through a symlink).
if (process.argv[1] && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])) {
  const [command, root = process.cwd()] = process.argv.slice(2);
  if (command === 'begin') beginBuild(root);
  else if (command === 'finish') finishBuild(root);
  else if (command === 'current') {
    // Exit 1 makes `prestart` (`current || npm run build`) build.
    const reason = staleReason(root);
    if (reason) {
      console.error(`build-stamp: ${reason}: building`);
      process.exitCode = 1;
    }
  } else {
    console.error('usage: build-stamp.ts begin|finish|current [root]');
    process.exitCode = 2;
  }
}
