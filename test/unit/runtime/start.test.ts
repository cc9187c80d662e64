import { describe, expect, it } from 'vitest';
import { register } from 'tsx/cjs/api';
import type startModule from '../../../src/start.cjs';

// start.cts is CommonJS on purpose (it must run before any ES module loads); vite does not
// transform .cts, so it is loaded through tsx's CommonJS loader.
const tsx = register({ namespace: 'start-test' });
const start = tsx.require('../../../src/start.cts', import.meta.url) as typeof startModule;

describe('start: libuv thread pool size', () => {
  it('keeps the operator’s UV_THREADPOOL_SIZE', () => {
    expect(start.threadPoolSize('16', 2)).toBe('16');
    expect(start.threadPoolSize('1', 8)).toBe('1');
  });

  it('uses one thread per core when unset or empty', () => {
    expect(start.threadPoolSize(undefined, 2)).toBe('2');
    expect(start.threadPoolSize('', 8)).toBe('8');
    expect(start.threadPoolSize('  ', 4)).toBe('4');
  });

  it('never goes below two threads (one core still runs crypto next to file I/O)', () => {
    expect(start.threadPoolSize(undefined, 1)).toBe('2');
  });
});
