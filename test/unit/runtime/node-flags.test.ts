import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/repo-root.js';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const sources = (dir: string) =>
  readdirSync(join(repoRoot, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.c?ts$/.test(name))
    .map((name) => join(dir, name));

/**
 * V8 and node flags change how the whole process behaves, so the service sets none while
 * it runs, and any it is started with live in one place: package.json's `start` script,
 * which the benchmark reads (bench/service-entry.ts) and the docs quote.
 */
describe('node flags', () => {
  it('are never set at run time', () => {
    const setting = [...sources('src'), ...sources('cli')].filter((file) => /setFlagsFromString/.test(read(file)));
    expect(setting).toEqual([]);
  });

  it("are started with only as package.json's start script says, wherever the docs show the start command", () => {
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    const docs = [
      'README.md',
      ...readdirSync(join(repoRoot, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => join('docs', name)),
    ];
    const commands = docs.flatMap((file) => [...read(file).matchAll(/`(node [^`]*dist\/src\/start\.cjs)`/g)].map((match) => `${file}: ${match[1]}`));
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) expect(command.replace(/^[^:]+: /, ''), command).toBe(start);
  });
});
