import { RE2JS } from 're2js';

const cache = new Map<string, RE2JS>();
const maxEntries = 500;

/** Compiles (and memoises) an RE2 pattern; RE2 runs in linear time, so no pattern can hang a query. */
export function compileRegex(pattern: string, caseInsensitive: boolean): RE2JS {
  const key = `${caseInsensitive ? 'i' : '-'}${pattern}`;
  let re = cache.get(key);
  if (!re) {
    re = RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, re);
  }
  return re;
}
