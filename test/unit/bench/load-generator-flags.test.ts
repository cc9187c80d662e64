import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadGeneratorNodeFlags, missingLoadGeneratorFlags } from '../../../bench/load-generator-flags.js';

describe('the load generator’s node flags', () => {
  it('are on the command line of `npm run bench`, the one way the benchmark is started', () => {
    const { scripts } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    const words = (scripts.bench ?? '').split(/\s+/);
    expect(words[0]).toBe('node');
    for (const flag of loadGeneratorNodeFlags) expect(words).toContain(flag);
    expect(words.indexOf('bench/run.ts')).toBeGreaterThan(Math.max(...loadGeneratorNodeFlags.map((flag) => words.indexOf(flag))));
  });

  it('are reported missing when the process was started without them', () => {
    expect(missingLoadGeneratorFlags(['--import', 'tsx'])).toEqual([...loadGeneratorNodeFlags]);
    expect(missingLoadGeneratorFlags(['--import', 'tsx', ...loadGeneratorNodeFlags])).toEqual([]);
  });
});
