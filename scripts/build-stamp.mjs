/**
 * Lets `npm start` skip the build when nothing it reads has changed, and start without any
 * devDependency when the build is current.
 *
 * Plain JavaScript (type-checked through its JSDoc, `checkJs`) because it runs where the
 * dev tools may be absent: a production install (`npm ci --omit=dev`, `npm prune
 * --omit=dev`, or the `npm pack` tarball installed with `--omit=dev`) has no tsx.
 *
 * `npm run build` (tsc, vite, plus the SBOM from package-lock.json) takes about 10 s; a
 * restart with an unchanged tree should not pay it. The stamp is a SHA-256 over the path and
 * contents of every build input. `prebuild` runs `begin` (drops the old stamp, notes the
 * inputs as they are before compiling), `postbuild` runs `finish` (the build succeeded: the
 * noted digest becomes the stamp), and `prestart` and `prepack` run `ensure`: nothing when
 * the build is current, else `npm run build` when its tools are installed, else one line
 * naming `npm run build` and exit 1. Contents, not mtimes: a checkout or copy that touches
 * files without changing them costs nothing, and an edit made during a build is caught at
 * the next start.
 *
 * A packed artifact (`npm pack`) ships the build and none of its sources: there is nothing
 * its build could be stale against, so there the finished build with all its outputs is
 * current.
 *
 * Usage: node scripts/build-stamp.mjs begin|finish|current|ensure [root]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Directories whose every file is a build input. */
export const inputDirs = /** @type {const} */ (['src', 'cli', 'admin']);
/** Single files that are build inputs (compiler settings, dependencies for the SBOM). */
export const inputFiles = /** @type {const} */ (['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']);
/** What `npm start` needs from a build; if one is missing the stamp does not count. */
export const outputs = /** @type {const} */ (['dist/src/start.cjs', 'dist/src/main.js', 'dist/admin/index.html', 'generated/sbom.cdx.json']);
/** The programs `npm run build` runs (its `sbom`, `build` scripts); the build tools are installed when all are found. */
export const buildTools = /** @type {const} */ (['cyclonedx-npm', 'tsc', 'vite']);

const stampFile = 'dist/.build-stamp';
const pendingFile = 'dist/.build-stamp.next';

/**
 * @param {string} dir
 * @returns {string[]}
 */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * SHA-256 over the relative path and contents of every build input under `root`.
 * @param {string} root
 * @returns {string}
 */
export function inputDigest(root) {
  const paths = [...inputDirs.flatMap((dir) => filesUnder(join(root, dir))), ...inputFiles.map((file) => join(root, file)).filter((path) => existsSync(path))];
  const hash = createHash('sha256');
  for (const path of paths.map((p) => relative(root, p).split(sep).join('/')).sort()) {
    const contents = readFileSync(join(root, path));
    // Lengths delimit the fields, so no two different trees hash the same bytes.
    hash.update(`${path.length}:${path}:${contents.length}:`).update(contents);
  }
  return hash.digest('hex');
}

/**
 * Whether `root` holds sources to build from (a checkout), not only a build (a packed artifact).
 * @param {string} root
 * @returns {boolean}
 */
export function hasSources(root) {
  return inputDirs.some((dir) => existsSync(join(root, dir)));
}

/**
 * Before compiling: forget the old stamp and note the inputs being built.
 * @param {string} root
 */
export function beginBuild(root) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  rmSync(join(root, stampFile), { force: true });
  writeFileSync(join(root, pendingFile), `${inputDigest(root)}\n`);
}

/**
 * After a successful build: the inputs noted by `beginBuild` are what `dist` holds.
 * @param {string} root
 */
export function finishBuild(root) {
  renameSync(join(root, pendingFile), join(root, stampFile));
}

/**
 * Why `npm start` must build first, or `undefined` when the last successful build was of
 * exactly the current inputs (or, in a packed artifact, is complete).
 * @param {string} root
 * @returns {string | undefined}
 */
export function staleReason(root) {
  const missing = outputs.find((output) => !existsSync(join(root, output)));
  if (missing) return `no build yet (${missing} is missing)`;
  /** @type {string} */
  let stamp;
  try {
    stamp = readFileSync(join(root, stampFile), 'utf8').trim();
  } catch {
    return 'no finished build recorded';
  }
  if (!hasSources(root)) return undefined;
  return stamp === inputDigest(root) ? undefined : 'sources changed since the last build';
}

/**
 * Whether the last successful build was of exactly the current inputs and its outputs are all there.
 * @param {string} root
 * @returns {boolean}
 */
export function buildIsCurrent(root) {
  return staleReason(root) === undefined;
}

/**
 * The directories `npm run` searches for programs in `root`: every `node_modules/.bin` from
 * `root` up, then `PATH`.
 * @param {string} root
 * @param {string} path the `PATH` value
 * @returns {string[]}
 */
function programDirs(root, path) {
  const dirs = [];
  for (let dir = root; ; dir = dirname(dir)) {
    dirs.push(join(dir, 'node_modules', '.bin'));
    if (dirname(dir) === dir) break;
  }
  return [...dirs, ...path.split(delimiter).filter((dir) => dir !== '')];
}

/**
 * The build tools `npm run build` would not find in `root` (none when the dev dependencies are installed).
 * @param {string} root
 * @param {string} [path] the `PATH` to search besides `node_modules/.bin`
 * @returns {string[]}
 */
export function missingBuildTools(root, path = process.env.PATH ?? '') {
  const dirs = programDirs(root, path);
  const names = process.platform === 'win32' ? /** @param {string} tool */ (tool) => [`${tool}.cmd`, `${tool}.exe`] : /** @param {string} tool */ (tool) => [tool];
  return buildTools.filter((tool) => !dirs.some((dir) => names(tool).some((name) => existsSync(join(dir, name)))));
}

/**
 * What `ensure` does in `root`: nothing, build, or refuse with the one line to print.
 * @param {string} root
 * @param {string} [path] the `PATH` to search for the build tools
 * @returns {{ action: 'none' } | { action: 'build', reason: string } | { action: 'refuse', message: string }}
 */
export function ensurePlan(root, path) {
  const reason = staleReason(root);
  if (reason === undefined) return { action: 'none' };
  if (!hasSources(root)) {
    return {
      action: 'refuse',
      message: `build-stamp: ${reason}, and this package has no sources to build from: run \`npm run build\` in a checkout and ship its dist/ and generated/ (see docs/operations.md)`,
    };
  }
  const missing = missingBuildTools(root, path);
  if (missing.length > 0) {
    return {
      action: 'refuse',
      message: `build-stamp: ${reason}, and the build tools are not installed (${missing.join(', ')} not found): run \`npm run build\` where the dev dependencies are (npm ci), then start again`,
    };
  }
  return { action: 'build', reason };
}

// Run as a script (either path may go through a symlink).
if (process.argv[1] && realpathSync(fileURLToPath(import.meta.url)) === realpathSync(process.argv[1])) {
  const [command, root = process.cwd()] = process.argv.slice(2);
  if (command === 'begin') beginBuild(root);
  else if (command === 'finish') finishBuild(root);
  else if (command === 'current') {
    const reason = staleReason(root);
    if (reason) {
      console.error(`build-stamp: ${reason}`);
      process.exitCode = 1;
    }
  } else if (command === 'ensure') {
    const plan = ensurePlan(root);
    if (plan.action === 'refuse') {
      console.error(plan.message);
      process.exitCode = 1;
    } else if (plan.action === 'build') {
      console.error(`build-stamp: ${plan.reason}: building`);
      const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
      if (build.error) console.error(`build-stamp: could not run npm run build: ${build.error.message}`);
      process.exitCode = build.status ?? 1;
    }
  } else {
    console.error('usage: build-stamp.mjs begin|finish|current|ensure [root]');
    process.exitCode = 2;
  }
}
