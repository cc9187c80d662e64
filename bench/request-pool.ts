/**
 * Pre-built, single-use request values (assertions, proofs) handed out in order. A pool
 * never repeats a value: once empty the run has to end, which the load runner arranges by
 * capping the request count at the pool size.
 */
export class RequestPool<T> {
  #next = 0;

  constructor(private readonly items: readonly T[]) {}

  /** Values not handed out yet. */
  get remaining(): number {
    return this.items.length - this.#next;
  }

  take(): T {
    const item = this.items[this.#next];
    if (item === undefined) throw new Error('request pool exhausted');
    this.#next += 1;
    return item;
  }
}

/** Builds `count` values; `make` receives the index. */
export function buildPool<T>(count: number, make: (index: number) => T): RequestPool<T> {
  const items: T[] = new Array<T>(count);
  for (let i = 0; i < count; i += 1) items[i] = make(i);
  return new RequestPool(items);
}
