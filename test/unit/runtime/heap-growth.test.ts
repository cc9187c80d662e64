import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, postgresHeapGrowth } from '../../../src/heap-growth.js';

/** Runs the decision with a recorder in place of V8's flag setter (the test process keeps its own GC). */
function decide(storage: 'sqlite' | 'postgres', execArgv: string[] = [], nodeOptions?: string): { returned: string | undefined; set: string[] } {
  const set: string[] = [];
  const returned = boundHeapGrowth(storage, { execArgv, env: nodeOptions === undefined ? {} : { NODE_OPTIONS: nodeOptions } }, (flags) => set.push(flags));
  return { returned, set };
}

describe('boundHeapGrowth', () => {
  it('bounds the old generation’s growth on PostgreSQL', () => {
    expect(decide('postgres')).toEqual({ returned: postgresHeapGrowth, set: ['--heap-growing-percent=200'] });
  });

  it('leaves V8’s own growth on SQLite', () => {
    expect(decide('sqlite')).toEqual({ returned: undefined, set: [] });
  });

  it('keeps the operator’s choice, as a node flag or in NODE_OPTIONS, in either spelling', () => {
    expect(decide('postgres', ['--max-semi-space-size=4', '--heap-growing-percent=50'])).toEqual({ returned: undefined, set: [] });
    expect(decide('postgres', [], '--max-old-space-size=512 --heap_growing_percent=150')).toEqual({ returned: undefined, set: [] });
  });

  it('is not fooled by a longer flag of similar name', () => {
    expect(decide('postgres', ['--heap-growing-percentage-report'])).toEqual({ returned: postgresHeapGrowth, set: [postgresHeapGrowth] });
  });
});
