import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, createClient, NotFoundError, PreconditionFailedError, ValidationError } from '../../packages/client/src/index.js';
import type { Client, ProductRatesCreate, ProductRatesRecord, ProductRatesTypes, ProductRatesUpdate, Quote, QuoteRequest } from '../../packages/client/src/index.js';
import { openApiDocument } from '../../scripts/openapi-document.js';
import type { DialectName } from '../../src/db/dialect.js';
import { dialects } from '../support/databases.js';
import { freePort } from '../support/free-port.js';
import { createHarness, crud } from '../support/harness.js';
import type { Harness } from '../support/harness.js';

/*
 * The client's selling calls (docs/selling.md, docs/client.md "Selling") against the real
 * service listening on a socket, on both databases: quote → order from the quote → confirm,
 * cancel, the refusals, the rates of a product, and the search's stay price.
 */

const minute = 60_000;
const place = { address: 'Main St 1', zip_code: '10115', time_zone: 'Europe/Berlin' };
/** 15:00 on 1 June to 10:00 on 3 June in Berlin: the nights of 1 and 2 June. */
const stay = { start_time: '2030-06-01T15:00:00+02:00', end_time: '2030-06-03T10:00:00+02:00' };

/** The service on `dialect`, listening on a free port with `PUBLIC_URL` = its origin. */
async function listening(dialect: DialectName): Promise<{ h: Harness; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const h = await createHarness(dialect, { env: { PUBLIC_URL: origin } });
  await h.app.server.listen({ port, host: '127.0.0.1' });
  return { h, origin };
}

/** The rejection of `promise`, which must be an instance of `type`. */
async function rejection<T>(promise: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

describe.each(dialects)('client library: selling a stay on %s', (dialect) => {
  let h: Harness;
  let client: Client;

  beforeAll(async () => {
    const service = await listening(dialect);
    h = service.h;
    const tenantId = await h.tenant('Seller');
    const credentials = await h.client(tenantId, [...crud('products'), ...crud('orders'), ...crud('bookings'), ...crud('service-charges'), 'orders:quote', 'orders:confirm']);
    const privateKey = credentials.key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    client = createClient({ baseUrl: service.origin, clientId: credentials.clientId, privateKey });
  });
  afterAll(() => h.close());

  const product = async (fields: Record<string, unknown> = {}) =>
    (await client.products.create({ name: 'Flat', city: 'Berlin', total_items: 1, price: 100, currency: 'EUR', ...place, ...fields })).record._id;

  it('quotes a stay, orders the quote at its total, and confirms the order paid elsewhere', async () => {
    const p = await product();
    await client.serviceCharges.create({ product_id: p, name: 'Cleaning', amount: 30 });
    await client.serviceCharges.create({ product_id: p, name: 'Tax', amount: 7.5, basis: 'percent_of_rent' });
    const request: QuoteRequest = { product_id: p, start_time: new Date('2030-06-01T13:00:00Z'), end_time: stay.end_time };
    const quote = await client.quotes.create(request);
    expect(quote).toMatchObject({ product_id: p, quantity: 1, currency: 'EUR', periods: 2, total: 245, start_time: '2030-06-01T13:00:00.000Z', end_time: '2030-06-03T08:00:00.000Z' });
    expect(quote.lines.map((line) => [line.kind, line.date ?? line.name, line.amount])).toEqual([
      ['rent', '2030-06-01', 100],
      ['rent', '2030-06-02', 100],
      ['service_charge', 'Cleaning', 30],
      ['service_charge', 'Tax', 15],
    ]);
    expect(Date.parse(quote.expires_at) - Date.now()).toBeGreaterThan(14 * minute);
    expect(Date.parse(quote.expires_at) - Date.now()).toBeLessThanOrEqual(15 * minute);
    // A quote holds nothing: the only unit can still be quoted.
    expect((await client.quotes.create(request)).total).toBe(245);

    const created = await client.orders.create({ quote_id: quote.quote_id, hold_seconds: 1800 });
    const order = created.record;
    expect(order).toMatchObject({ product_id: p, status: 'active', total_amount: 245, currency: 'EUR', quantity: 1, lines: quote.lines, paid_at: null });
    expect(Date.parse(order.expires_at ?? '') - Date.now()).toBeGreaterThan(29 * minute);
    const held = await client.bookings.get(order.booking_id ?? '');
    expect(held.record).toMatchObject({ status: 'held', order_id: order._id, expires_at: order.expires_at });
    // The order holds the unit: no second quote or order of it.
    const taken = await rejection(client.quotes.create(request), ConflictError);
    expect([taken.code, taken.problem.available]).toEqual(['capacity_exceeded', 0]);

    await rejection(client.orders.confirm(order._id, { etag: '"stale"' }), PreconditionFailedError);
    const confirmed = await client.orders.confirm(order._id, { etag: created.etag });
    expect(confirmed.record).toMatchObject({ _id: order._id, status: 'confirmed', expires_at: null, total_amount: 245 });
    expect(confirmed.record.paid_at).toEqual(expect.any(String));
    expect(confirmed.etag).not.toBe(created.etag);
    expect((await client.bookings.get(order.booking_id ?? '')).record).toMatchObject({ status: 'active', expires_at: null });
    // Confirming a confirmed order changes nothing.
    const again = await client.orders.confirm(order._id, { etag: confirmed.etag });
    expect(again).toEqual(confirmed);
  });

  it('cancels an order, freeing its units at once; a cancelled order cannot be confirmed', async () => {
    const p = await product();
    const created = await client.orders.create({ product_id: p, ...stay });
    expect(created.record).toMatchObject({ status: 'active', total_amount: 200, quantity: 1 });
    expect((await rejection(client.orders.create({ product_id: p, ...stay }), ConflictError)).code).toBe('capacity_exceeded');

    await rejection(client.orders.cancel(created.record._id, { etag: '"stale"' }), PreconditionFailedError);
    const cancelled = await client.orders.cancel(created.record._id, { etag: created.etag });
    expect(cancelled.record).toMatchObject({ _id: created.record._id, status: 'cancelled' });
    expect((await client.bookings.get(created.record.booking_id ?? '')).record.status).toBe('cancelled');
    expect((await client.orders.create({ product_id: p, ...stay })).record.status).toBe('active');

    const refused = await rejection(client.orders.confirm(created.record._id, { etag: cancelled.etag }), ConflictError);
    expect(refused.code).toBe('invalid_transition');
    expect(refused.problem).toMatchObject({ from: 'cancelled', to: 'confirmed' });
  });

  it('answers what cannot be sold with the problem codes of docs/selling.md', async () => {
    const unpriced = await product({ price: null });
    expect((await rejection(client.quotes.create({ product_id: unpriced, ...stay }), ConflictError)).code).toBe('not_for_sale');
    expect(await rejection(client.quotes.create({ product_id: 'no-such-product', ...stay }), NotFoundError)).toBeInstanceOf(NotFoundError);

    const invalid = await rejection(client.orders.create({ quote_id: 'q_nonsense' }), ValidationError);
    expect([invalid.code, invalid.problem.reason]).toEqual(['invalid_quote', 'invalid']);
    const p = await product();
    const quote = await client.quotes.create({ product_id: p, ...stay });
    expect((await rejection(client.orders.create({ quote_id: quote.quote_id, product_id: p }), ValidationError)).errors.map((e) => e.field)).toEqual(['product_id']);
    expect((await rejection(client.orders.create({ quote_id: quote.quote_id, hold_seconds: 59 }), ValidationError)).errors.map((e) => e.field)).toEqual(['hold_seconds']);
    expect((await rejection(client.orders.create({ product_id: p, ...stay, total_amount: 1 }), ValidationError)).errors.map((e) => e.field)).toEqual(['total_amount']);

    const rate = await client.products.rates(p).create({ from: '2030-06-01', to: '2030-06-02', closed_to_arrival: true, min_stay: 3 });
    const restricted = await rejection(client.quotes.create({ product_id: p, ...stay }), ConflictError);
    expect(restricted.code).toBe('stay_restricted');
    expect(restricted.problem.reasons).toEqual([
      { rule: 'closed_to_arrival', rate_id: rate.record._id, date: '2030-06-01' },
      { rule: 'min_stay', rate_id: rate.record._id, date: '2030-06-01', limit: 3 },
    ]);
  });

  it("creates, lists, reads, changes and deletes a product's rates, which then price the stay", async () => {
    const p = await product({ total_items: 2 });
    const rates = client.products.rates(p);
    const july: ProductRatesCreate = { from: '2030-07-01', to: '2030-07-08', price: 140, min_stay: 2 };
    const created = await rates.create(july);
    expect(created.record).toMatchObject({ ...july, product_id: p, max_stay: null, closed: false, closed_to_arrival: false });
    expect(created.replayed).toBe(false);
    // Touching ranges do not overlap; sharing a date does.
    await rates.create({ from: '2030-07-08', to: '2030-07-15', closed: true });
    const overlap = await rejection(rates.create({ from: '2030-07-05', to: '2030-07-10' }), ConflictError);
    expect([overlap.code, overlap.problem.rate_id]).toEqual(['rate_overlap', created.record._id]);

    const listed = await rates.list({ sort: ['-from'], fields: ['from', 'price'] }).toArray();
    expect(listed).toEqual([
      { _id: expect.any(String), from: '2030-07-08', price: null },
      { _id: created.record._id, from: '2030-07-01', price: 140 },
    ]);
    expect(await rates.list({ where: { from: { $gte: '2030-07-08' } } }).toArray()).toHaveLength(1);
    expect(await rates.get(created.record._id)).toEqual({ record: created.record, etag: created.etag });

    const changed = await rates.update(created.record._id, { price: 150 }, { etag: created.etag });
    expect(changed.record).toMatchObject({ price: 150, min_stay: 2 });
    await rejection(rates.update(created.record._id, { price: 160 }, { etag: created.etag }), PreconditionFailedError);
    const retried = await rates.updateWithRetry(created.record._id, (current) => ({ max_stay: (current.min_stay ?? 1) + 5 }));
    expect(retried.record).toMatchObject({ price: 150, max_stay: 7 });

    const quote = await client.quotes.create({ product_id: p, start_time: '2030-07-02T15:00:00+02:00', end_time: '2030-07-04T10:00:00+02:00', quantity: 2 });
    expect(quote.lines.map((line) => [line.date, line.unit_price, line.amount, line.rate_id])).toEqual([
      ['2030-07-02', 150, 300, created.record._id],
      ['2030-07-03', 150, 300, created.record._id],
    ]);
    expect(quote.total).toBe(600);

    await rejection(rates.delete(created.record._id, { etag: created.etag }), PreconditionFailedError);
    await rates.delete(created.record._id, { etag: retried.etag });
    await rejection(rates.get(created.record._id), NotFoundError);
    await rejection(client.products.rates('no-such-product').list().toArray(), NotFoundError);
    expect(() => client.products.rates('')).toThrow(TypeError);
  });

  it("lists each free product of a search with the stay's price, and leaves out those whose rates refuse it", async () => {
    const city = `Selling ${dialect}`;
    const [priced, unpriced, closed] = [await product({ city, name: 'A' }), await product({ city, name: 'B', price: null }), await product({ city, name: 'C' })];
    await client.products.rates(closed).create({ from: '2030-06-02', to: '2030-06-03', closed: true });
    const found = await client.availability.search({ from: '2030-06-01', to: '2030-06-03', quantity: 1, filters: { city }, sort: ['name'], fields: ['name'] }).toArray();
    expect(found).toEqual([
      { _id: priced, name: 'A', available: 1, price: { total: 200, currency: 'EUR' } },
      { _id: unpriced, name: 'B', available: 1, price: null },
    ]);
  });
});

/** Exactly the keys of `T` that are not optional. */
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Json = Record<string, unknown>;

describe('client library: the selling types match the OpenAPI document', () => {
  let paths: Record<string, Record<string, Json>>;

  beforeAll(async () => {
    paths = (await openApiDocument()).paths as unknown as Record<string, Record<string, Json>>;
  });

  const schemaOf = (path: string, method: string, where: 'request' | string): Json => {
    const operation = paths[path]?.[method] as Json;
    const holder = where === 'request' ? (operation.requestBody as Json) : ((operation.responses as Json)[where] as Json);
    return ((holder.content as Json)['application/json'] as Json).schema as Json;
  };
  const names = (schema: Json) => Object.keys(schema.properties as Json).sort();
  const required = (schema: Json) => [...((schema.required as string[] | undefined) ?? [])].sort();
  const keys = (record: Record<string, true>) => Object.keys(record).sort();

  it('has every member of a quote and its request, required where the document requires it', () => {
    // Each literal names exactly the keys of its type (tsc refuses a missing or an extra one),
    // so a member added on either side fails here until the other side has it too.
    const quote: Record<keyof Quote, true> = {
      quote_id: true,
      product_id: true,
      start_time: true,
      end_time: true,
      quantity: true,
      currency: true,
      periods: true,
      lines: true,
      total: true,
      expires_at: true,
    };
    const quoteRequired: Record<RequiredKeys<Quote>, true> = {
      quote_id: true,
      product_id: true,
      start_time: true,
      end_time: true,
      quantity: true,
      currency: true,
      periods: true,
      lines: true,
      total: true,
      expires_at: true,
    };
    const request: Record<keyof QuoteRequest, true> = { product_id: true, start_time: true, end_time: true, quantity: true };
    const requestRequired: Record<RequiredKeys<QuoteRequest>, true> = { product_id: true, start_time: true, end_time: true };
    const answer = schemaOf('/v1/quotes', 'post', '200');
    const body = schemaOf('/v1/quotes', 'post', 'request');
    expect(keys(quote)).toEqual(names(answer));
    expect(keys(quoteRequired)).toEqual(required(answer));
    expect(keys(request)).toEqual(names(body));
    expect(keys(requestRequired)).toEqual(required(body));
  });

  it('has every member of a rate, its bodies, its sort keys, fields and filters', () => {
    const record: Record<keyof ProductRatesRecord, true> = {
      _id: true,
      tenant_id: true,
      created_at: true,
      updated_at: true,
      product_id: true,
      from: true,
      to: true,
      price: true,
      min_stay: true,
      max_stay: true,
      closed: true,
      closed_to_arrival: true,
    };
    const recordRequired: Record<RequiredKeys<ProductRatesRecord>, true> = {
      _id: true,
      tenant_id: true,
      created_at: true,
      updated_at: true,
      from: true,
      to: true,
      closed: true,
      closed_to_arrival: true,
    };
    const create: Record<keyof ProductRatesCreate, true> = { from: true, to: true, price: true, min_stay: true, max_stay: true, closed: true, closed_to_arrival: true };
    const createRequired: Record<RequiredKeys<ProductRatesCreate>, true> = { from: true, to: true };
    const update: Record<keyof ProductRatesUpdate, true> = { from: true, to: true, price: true, min_stay: true, max_stay: true, closed: true, closed_to_arrival: true };
    const sortKeys: Record<ProductRatesTypes['sortKey'], true> = {
      _id: true,
      '-_id': true,
      tenant_id: true,
      '-tenant_id': true,
      created_at: true,
      '-created_at': true,
      updated_at: true,
      '-updated_at': true,
      from: true,
      '-from': true,
      to: true,
      '-to': true,
    };
    const fields: Record<ProductRatesTypes['field'], true> = {
      _id: true,
      tenant_id: true,
      created_at: true,
      updated_at: true,
      product_id: true,
      from: true,
      to: true,
      price: true,
      min_stay: true,
      max_stay: true,
      closed: true,
      closed_to_arrival: true,
    };
    const filters: Record<keyof ProductRatesTypes['filter'], true> = { _id: true, tenant_id: true, created_at: true, updated_at: true, product_id: true, from: true, to: true };

    const answer = schemaOf('/v1/products/{id}/rates', 'post', '201');
    const createBody = schemaOf('/v1/products/{id}/rates', 'post', 'request');
    const updateBody = schemaOf('/v1/products/{id}/rates/{rate_id}', 'patch', 'request');
    expect(keys(record)).toEqual(names(answer));
    expect(keys(recordRequired)).toEqual(required(answer));
    expect(keys(create)).toEqual(names(createBody));
    expect(keys(createRequired)).toEqual(required(createBody));
    expect(keys(update)).toEqual(names(updateBody));
    expect(required(updateBody)).toEqual([]);

    const parameters = ((paths['/v1/products/{id}/rates']?.get as Json).parameters as Json[]).filter((parameter) => typeof parameter.name === 'string');
    const enumOf = (name: string) => ((((parameters.find((parameter) => parameter.name === name)?.schema as Json).items as Json).enum as string[]) ?? []).slice().sort();
    expect(keys(sortKeys)).toEqual(enumOf('sort'));
    expect(keys(fields)).toEqual(enumOf('fields'));
    const filterNames = parameters.map((parameter) => String(parameter.name)).filter((name) => !name.includes('__') && name !== 'sort' && name !== 'fields');
    expect(keys(filters)).toEqual(filterNames.sort());
  });
});
