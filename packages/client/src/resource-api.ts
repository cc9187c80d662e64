import { PreconditionFailedError } from './errors.js';
import type { CallOptions, CreateOptions, Transport } from './transport.js';
import type { Where } from './where.js';

/** What the generated types say about one resource. */
export interface ResourceTypes {
  readonly record: object;
  readonly create: object;
  readonly update: object;
  readonly field: string;
  readonly sortKey: string;
  readonly filter: object;
}

/** A record with the ETag it had when read or written: pass `etag` to update and delete. */
export interface Versioned<R> {
  readonly record: R;
  readonly etag: string;
}

/** A created record: `replayed` when the service answered a repeated `idempotencyKey` with the stored answer. */
export interface Created<R> extends Versioned<R> {
  readonly replayed: boolean;
}

/** The ETag an update or delete must match, and the call's options. */
export interface WriteOptions extends CallOptions {
  readonly etag: string;
}

/** Options of {@link ResourceClient.list}. */
export interface ListOptions<T extends ResourceTypes, F extends T['field']> extends CallOptions {
  readonly where?: Where<T['filter']>;
  /** Sort keys, `-` prefix for descending; default `-created_at`. */
  readonly sort?: readonly T['sortKey'][];
  /** Fields to return; `_id` always comes. */
  readonly fields?: readonly F[];
  /** Records per request, 1 to 100 (default 100: fewer round trips). */
  readonly perPage?: number;
  /** First page to read (default 1). */
  readonly page?: number;
  /** Query-parameter filters such as `{ city: 'Berlin', total_items__gte: 2 }`. */
  readonly filters?: Readonly<Record<string, string | number | boolean | Date | readonly (string | number)[]>>;
}

/** One page of a list. */
export interface Page<I> {
  readonly items: readonly I[];
  readonly total: number;
  readonly page: number;
  readonly perPage: number;
}

/** All matching records, page by page as the iteration needs them. */
export interface ListIterator<I> extends AsyncIterable<I> {
  /** The pages themselves, for callers who want `total` or to stop per page. */
  pages(): AsyncIterable<Page<I>>;
  /** Every matching record in one array (mind the memory on large collections). */
  toArray(): Promise<I[]>;
}

/** A listed item: the full record, or `_id` plus the selected `fields`. */
export type ListItem<T extends ResourceTypes, F extends T['field']> = [F] extends [never] ? T['record'] : Pick<T['record'], Extract<F | '_id', keyof T['record']>>;

/** The query string of a list's `where`, `sort`, `fields` and `filters`. */
export function listQuery(options: Pick<ListOptions<ResourceTypes, string>, 'where' | 'sort' | 'fields' | 'filters'>): URLSearchParams {
  const query = new URLSearchParams();
  if (options.where) query.set('where', JSON.stringify(options.where));
  if (options.sort?.length) query.set('sort', options.sort.join(','));
  if (options.fields?.length) query.set('fields', options.fields.join(','));
  for (const [name, value] of Object.entries(options.filters ?? {})) {
    query.set(name, Array.isArray(value) ? value.join(',') : value instanceof Date ? value.toISOString() : String(value));
  }
  return query;
}

/**
 * Every item of a paged collection at `path` (`{ items, total, page, per_page }`), requesting
 * pages of `perPage` (default 100) from `page` (default 1) as the iteration needs them.
 */
export function pagedList<Item>(transport: Transport, path: string, query: URLSearchParams, options: CallOptions & { readonly perPage?: number; readonly page?: number }): ListIterator<Item> {
  const perPage = options.perPage ?? 100;
  async function* pages(): AsyncGenerator<Page<Item>> {
    for (let page = options.page ?? 1; ; page++) {
      const pageQuery = new URLSearchParams(query);
      pageQuery.set('page', String(page));
      pageQuery.set('per_page', String(perPage));
      const { body } = await transport.request<{ items: Item[]; total: number; page: number; per_page: number }>({ method: 'GET', path, query: pageQuery, ...tenant(options) });
      yield { items: body.items, total: body.total, page: body.page, perPage: body.per_page };
      if (body.items.length === 0 || page * body.per_page >= body.total) return;
    }
  }
  async function* items(): AsyncGenerator<Item> {
    for await (const page of pages()) yield* page.items;
  }
  return {
    [Symbol.asyncIterator]: () => items(),
    pages,
    async toArray() {
      const out: Item[] = [];
      for await (const item of items()) out.push(item);
      return out;
    },
  };
}

/** Only the `tenantId` of `options` (so no other option turns into a request field). */
export function tenant(options: CallOptions): CallOptions {
  return options.tenantId === undefined ? {} : { tenantId: options.tenantId };
}

/** Options of {@link ResourceClient.updateWithRetry}. */
export interface UpdateWithRetryOptions extends CallOptions {
  /** Reads and writes before giving up on a record that keeps changing (default 5). */
  readonly maxAttempts?: number;
}

/**
 * The operations of a resource. `updateWithRetry` reads the record, lets `mutate` compute
 * the changes from it, and writes them with its ETag, reading again when another writer
 * got there first (412). `mutate` returning `undefined` or `{}` means nothing to change.
 */
export class ResourceClient<T extends ResourceTypes> {
  readonly #transport: Transport;
  readonly #path: string;

  constructor(transport: Transport, path: string) {
    this.#transport = transport;
    this.#path = `/${path}`;
  }

  #item(id: string): string {
    if (id === '') throw new TypeError('id must not be empty');
    return `${this.#path}/${encodeURIComponent(id)}`;
  }

  /** Iterates over every matching record, requesting pages of `perPage` as it goes. */
  list<F extends T['field'] = never>(options: ListOptions<T, F> = {}): ListIterator<ListItem<T, F>> {
    return pagedList<ListItem<T, F>>(this.#transport, this.#path, listQuery(options), options);
  }

  /** Reads one record and its ETag. */
  async get(id: string, options: CallOptions = {}): Promise<Versioned<T['record']>> {
    return this.#versioned(await this.#transport.request({ method: 'GET', path: this.#item(id), ...tenant(options) }));
  }

  /** Creates a record (201); returns it with its ETag. With `idempotencyKey`, a repeat is answered with the first record. */
  async create(body: T['create'], options: CreateOptions = {}): Promise<Created<T['record']>> {
    const response = await this.#transport.request({
      method: 'POST',
      path: this.#path,
      body,
      ...tenant(options),
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    });
    return { ...this.#versioned(response), replayed: response.headers.get('idempotency-replayed') === 'true' };
  }

  /** Changes the fields in `changes`, if the record still has `etag` (else `PreconditionFailedError`). */
  async update(id: string, changes: T['update'], options: WriteOptions): Promise<Versioned<T['record']>> {
    return this.#versioned(await this.#transport.request({ method: 'PATCH', path: this.#item(id), body: changes, headers: { 'if-match': options.etag }, ...tenant(options) }));
  }

  /** Deletes a record, if it still has `etag`. */
  async delete(id: string, options: WriteOptions): Promise<void> {
    await this.#transport.request({ method: 'DELETE', path: this.#item(id), headers: { 'if-match': options.etag }, ...tenant(options) });
  }

  /** Read, compute changes, write with the ETag; on 412 read again and recompute. */
  async updateWithRetry(
    id: string,
    mutate: (record: T['record']) => T['update'] | undefined | Promise<T['update'] | undefined>,
    options: UpdateWithRetryOptions = {},
  ): Promise<Versioned<T['record']>> {
    const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
    for (let attempt = 1; ; attempt++) {
      const current = await this.get(id, tenant(options));
      const changes = await mutate(current.record);
      if (changes === undefined || Object.keys(changes).length === 0) return current;
      try {
        return await this.update(id, changes, { etag: current.etag, ...tenant(options) });
      } catch (error) {
        if (!(error instanceof PreconditionFailedError) || attempt >= maxAttempts) throw error;
      }
    }
  }

  #versioned(response: { headers: Headers; body: unknown }): Versioned<T['record']> {
    return { record: response.body as T['record'], etag: response.headers.get('etag') ?? '' };
  }
}

/** A resource client limited to the operations `M` the resource has. */
export type ResourceApi<T extends ResourceTypes, M extends keyof ResourceClient<T>> = Pick<ResourceClient<T>, M>;
