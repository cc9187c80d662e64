import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientTypes } from '../../scripts/client-types.js';
import { openApiDocument } from '../../scripts/openapi-document.js';
import { repoRoot } from '../support/run-cli.js';

const packageDir = join(repoRoot, 'packages/client');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : [join(dir, entry.name)]));
}

describe('packages/client', () => {
  it('has the types of the current OpenAPI document (run `npm run client:types` after an API change)', async () => {
    const generated = readFileSync(join(packageDir, 'src/generated/api.ts'), 'utf8');
    expect(generated).toBe(clientTypes(await openApiDocument()));
  });

  it('imports nothing but jose and its own modules, and declares only jose', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; type: string; exports: unknown };
    expect(Object.keys(manifest.dependencies)).toEqual(['jose']);
    expect(manifest.type).toBe('module');
    for (const file of sources(join(packageDir, 'src'))) {
      const specifiers = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s+'([^']+)'/g)].map((m) => m[1] ?? '');
      for (const specifier of specifiers) expect(specifier === 'jose' || specifier.startsWith('./') || specifier.startsWith('../'), `${file}: ${specifier}`).toBe(true);
    }
  });

  it('builds on its own into ESM with declarations, without Node types', () => {
    const out = mkdtempSync(join(tmpdir(), 'client-build-'));
    try {
      execFileSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(packageDir, 'tsconfig.json'), '--outDir', out], { stdio: 'pipe' });
      expect(existsSync(join(out, 'index.js'))).toBe(true);
      expect(readFileSync(join(out, 'index.d.ts'), 'utf8')).toContain('createClient');
      expect(readFileSync(join(out, 'index.js'), 'utf8')).toMatch(/^export \{ createClient \}/m);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
