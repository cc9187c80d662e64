import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

/** One relative import of a source file: `from` imports `to` (paths from the repository root). */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** Every `.ts`/`.cts`/`.mts` file under `dir` (relative to `root`), recursively. */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, path);
    return /\.(ts|cts|mts)$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The relative imports of one file: `import`, `import type`, `export … from` and dynamic
 * `import()`, as TypeScript's pre-processor sees them. A type-only import is a dependency
 * too: the importing module cannot be understood, or compiled, without the other one.
 */
export function importsOf(file: string, source: string): ImportEdge[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({
      from: file,
      to: normalize(join(dirname(file), specifier))
        .replace(/\.js$/, '.ts')
        .replace(/\.cjs$/, '.cts'),
    }));
}

/** The import edges of every source file under the given folders. */
export function importGraph(root: string, dirs: readonly string[]): ImportEdge[] {
  return dirs.flatMap((dir) => sourceFiles(root, dir)).flatMap((file) => importsOf(relative(root, join(root, file)), readFileSync(join(root, file), 'utf8')));
}
