/**
 * The service's TypeScript (`src/`, `cli/`, the client package's `src/` they import, and
 * `examples/`), compiled once to JavaScript for the processes tests start. tsx compiles every
 * module again in each process it starts, off-thread through Node's loader hooks, and the
 * suite starts many; this is the same esbuild transform, done once and kept on disk.
 *
 * File for file, in the same layout, under `.tmp/compiled-service/<digest>/` of the checkout:
 * walking up from a compiled module still finds the repository's `package.json` (its
 * `"type": "module"`, and `packageInfo()`'s root, so `dist/admin` and `generated/`) and
 * `node_modules`. The digest covers every input path and content, the tsconfig, the options and
 * the compiler, so an edit means a new directory and a stale build is never run. Processes build
 * into a private directory and rename it into place, so parallel workers can share the result.
 * The modules carry inline source maps: run them with `--enable-source-maps` and stack traces
 * name the `.ts` lines.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { transformSync, version as esbuildVersion } from 'esbuild';
import type { TransformOptions } from 'esbuild';
import { repoRoot } from './repo-root.js';

export interface CompileRequest {
  /** The checkout: `dirs` are relative to it, and the source maps point back into it. */
  readonly root: string;
  /** The source directories to compile (every `.ts` and `.cts` file in them, recursively). */
  readonly dirs: readonly string[];
  /** Where the compiled trees go, one directory per digest. */
  readonly outBase: string;
  /** The `tsconfig.json` whose compiler options esbuild honours (`verbatimModuleSyntax`…). */
  readonly tsconfig: string;
}

export interface CompiledTree {
  /** The compiled tree: `<dir>/<path>.js` for each `<root>/<path>.ts`. */
  readonly dir: string;
  readonly digest: string;
  /** False when an earlier call (this process or another) had already built it. */
  readonly built: boolean;
}

// tsx's own options (its esbuild transform), plus inline maps written with the file.
const options: TransformOptions = { target: `node${process.versions.node}`, sourcemap: 'inline', sourcesContent: false, minifyWhitespace: true, keepNames: true };

// A build nobody has reused for this long is removed when a new one is made.
const pruneAfterMs = 60 * 60 * 1000;

function sources(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sources(root, path);
      return /\.c?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
    })
    .sort();
}

/** The output name of a source file: `.ts` → `.js` (ES module), `.cts` → `.cjs` (CommonJS). */
const outputPath = (path: string) => path.replace(/\.ts$/, '.js').replace(/\.cts$/, '.cjs');

/** Compiles `request.dirs` unless a build of exactly these inputs already exists. */
export function compileTree(request: CompileRequest): CompiledTree {
  const tsconfig = readFileSync(request.tsconfig, 'utf8');
  const files = request.dirs.flatMap((dir) => sources(request.root, dir));
  const hash = createHash('sha256').update(JSON.stringify({ esbuildVersion, options, tsconfig }));
  const contents = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(join(request.root, file), 'utf8');
    contents.set(file, text);
    hash.update(`\0${file}\0${text.length}\0`).update(text);
  }
  const digest = hash.digest('hex').slice(0, 16);
  const dir = join(request.outBase, digest);
  if (reuse(dir)) return { dir, digest, built: false };

  const staging = `${dir}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  try {
    for (const [file, text] of contents) {
      const target = join(staging, outputPath(file));
      mkdirSync(dirname(target), { recursive: true });
      // The map names the source relative to the output, as Node resolves it from there.
      const sourcefile = relative(dirname(join(dir, file)), join(request.root, file));
      const format = file.endsWith('.cts') ? 'cjs' : 'esm';
      writeFileSync(target, transformSync(text, { ...options, loader: 'ts', format, sourcefile, tsconfigRaw: tsconfig }).code);
    }
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another process renamed the same build into place first: use that one.
    if (reuse(dir)) return { dir, digest, built: false };
    throw error;
  }
  prune(request.outBase, digest);
  return { dir, digest, built: true };
}

/** True when the build exists; its time stamp then says it is in use, so no prune takes it. */
function reuse(dir: string): boolean {
  if (!existsSync(dir)) return false;
  const now = new Date();
  utimesSync(dir, now, now);
  return true;
}

/** Removes builds (and abandoned staging directories) nobody has used for a while. */
function prune(outBase: string, keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(outBase)) {
    if (name === keep) continue;
    const path = join(outBase, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat && now - stat.mtimeMs > pruneAfterMs) rmSync(path, { recursive: true, force: true });
  }
}

let service: string | undefined;

/**
 * The compiled service of this checkout (built on first use, then reused): run
 * `node --enable-source-maps <dir>/src/main.js` (or `cli/main.js`, `examples/integration.js`)
 * from the repository root, as {@link compiledEntry} gives it.
 */
export function compiledService(): string {
  service ??= compileTree({
    root: repoRoot,
    dirs: ['src', 'cli', 'packages/client/src', 'examples'],
    outBase: join(repoRoot, '.tmp', 'compiled-service'),
    tsconfig: join(repoRoot, 'tsconfig.json'),
  }).dir;
  return service;
}

/** Node's arguments that run `entry` (e.g. `cli/main.js`) of the compiled service, stack traces naming `.ts` lines. */
export function compiledEntry(entry: string): string[] {
  return ['--enable-source-maps', join(compiledService(), entry)];
}
