import { RE2JS } from 're2js';
import { BoundedCache } from '../lib/bounded-cache.js';

const compiled = new BoundedCache<string, RE2JS>(500);

/** Compiles (and memoises) an RE2 pattern; RE2 runs in linear time, so no pattern can hang a query. */
export function compileRegex(pattern: string, caseInsensitive: boolean): RE2JS {
  return compiled.get(`${caseInsensitive ? 'i' : '-'}${pattern}`, (key) => RE2JS.compile(key.slice(1), caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0));
}
