/**
 * `compute` remembered per key object (for values derived from immutable definitions,
 * such as a resource's stored fields, asked for on every request).
 */
export function memoizeWeak<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const cache = new WeakMap<K, V>();
  return (key) => {
    if (cache.has(key)) return cache.get(key) as V;
    const value = compute(key);
    cache.set(key, value);
    return value;
  };
}
