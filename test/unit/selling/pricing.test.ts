import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyExponent, toMinor } from '../../../src/lib/money.js';
import { priceStay } from '../../../src/selling/pricing.js';
import type { ChargeBasis, ChargeRule, PricingInput, RateRule, Reason } from '../../../src/selling/pricing.js';
import { stayPeriods } from '../../../src/selling/stay-periods.js';
import type { PriceUnit } from '../../../src/selling/stay-periods.js';

const hourMs = 60 * 60 * 1000;
const dayMs = 24 * hourMs;
const berlin = 'Europe/Berlin';
const at = (iso: string): number => Date.parse(iso);

const rate = (id: string, from: string, to: string, fields: Partial<RateRule> = {}): RateRule => ({
  id,
  from,
  to,
  price: null,
  minStay: null,
  maxStay: null,
  closed: false,
  closedToArrival: false,
  ...fields,
});
const charge = (id: string, basis: ChargeBasis, amount: number, currency = 'EUR'): ChargeRule => ({ id, name: null, basis, amount, currency });

/** Two nights in Berlin, 15:00 on 1 June to 10:00 on 3 June, at 100 EUR a night. */
const stay = (fields: Partial<PricingInput> = {}): PricingInput => ({
  product: { price: 100, priceUnit: 'night', currency: 'EUR', timeZone: berlin },
  rates: [],
  charges: [],
  start: at('2026-06-01T13:00:00Z'),
  end: at('2026-06-03T08:00:00Z'),
  quantity: 1,
  ...fields,
});

/** `minor / 10^exponent` as decimal text, so random prices are written as a client would. */
function textOf(minor: bigint, exponent: number): string {
  const digits = minor.toString().padStart(exponent + 1, '0');
  return exponent === 0 ? digits : `${digits.slice(0, digits.length - exponent)}.${digits.slice(digits.length - exponent)}`;
}

describe('priceStay', () => {
  it('prices each night by the rate covering its date, then the charges in order', () => {
    const pricing = priceStay(
      stay({
        rates: [rate('summer', '2026-06-02', '2026-07-01', { price: 120.5 }), rate('quiet', '2026-05-01', '2026-06-02')],
        charges: [charge('cleaning', 'per_order', 25), charge('linen', 'per_unit', 7.5), charge('tax', 'per_unit_per_period', 2.1), charge('service', 'percent_of_rent', 10)],
        quantity: 2,
      }),
    );
    expect(pricing).toEqual({
      kind: 'priced',
      currency: 'EUR',
      periods: 2,
      lines: [
        { kind: 'rent', start: '2026-05-31T22:00:00.000Z', end: '2026-06-01T22:00:00.000Z', date: '2026-06-01', unit_price: 100, quantity: 2, amount: 200, rate_id: null },
        { kind: 'rent', start: '2026-06-01T22:00:00.000Z', end: '2026-06-02T22:00:00.000Z', date: '2026-06-02', unit_price: 120.5, quantity: 2, amount: 241, rate_id: 'summer' },
        { kind: 'service_charge', service_charge_id: 'cleaning', name: null, basis: 'per_order', amount: 25 },
        { kind: 'service_charge', service_charge_id: 'linen', name: null, basis: 'per_unit', amount: 15 },
        { kind: 'service_charge', service_charge_id: 'tax', name: null, basis: 'per_unit_per_period', amount: 8.4 },
        { kind: 'service_charge', service_charge_id: 'service', name: null, basis: 'percent_of_rent', amount: 44.1 },
      ],
      total: 533.5,
    });
  });

  it('rounds a percent of the rent half up to the cent', () => {
    const pricing = priceStay(
      stay({ product: { price: 1.99, priceUnit: 'night', currency: 'EUR', timeZone: berlin }, end: at('2026-06-02T08:00:00Z'), charges: [charge('fee', 'percent_of_rent', 7.5)] }),
    );
    expect(pricing.kind === 'priced' && pricing.lines.map((line) => line.amount)).toEqual([1.99, 0.15]);
    expect(pricing.kind === 'priced' && pricing.total).toBe(2.14);
  });

  it('lists every restriction at once, sorted by date and rule', () => {
    const pricing = priceStay(
      stay({
        rates: [rate('june-1', '2026-06-01', '2026-06-02', { closedToArrival: true, minStay: 3, maxStay: 5 }), rate('june-2', '2026-06-02', '2026-06-03', { closed: true })],
      }),
    );
    expect(pricing).toEqual({
      kind: 'restricted',
      reasons: [
        { rule: 'closed_to_arrival', rate_id: 'june-1', date: '2026-06-01' },
        { rule: 'min_stay', rate_id: 'june-1', date: '2026-06-01', limit: 3 },
        { rule: 'closed', rate_id: 'june-2', date: '2026-06-02' },
      ],
    });
  });

  it('gives one reason per closed date however many hours fall on it, and judges max_stay on the arrival rate', () => {
    const product = { price: 10, priceUnit: 'hour' as const, currency: 'EUR', timeZone: berlin };
    const pricing = priceStay(stay({ product, rates: [rate('closed', '2026-06-01', '2026-06-02', { closed: true, maxStay: 2 })], start: at('2026-06-01T08:00:00Z'), end: at('2026-06-01T13:00:00Z') }));
    expect(pricing).toEqual({
      kind: 'restricted',
      reasons: [
        { rule: 'closed', rate_id: 'closed', date: '2026-06-01' },
        { rule: 'max_stay', rate_id: 'closed', date: '2026-06-01', limit: 2 },
      ],
    });
  });

  it('answers not_for_sale before anything else, then a currency mismatch before restrictions', () => {
    const closed = [rate('closed', '2026-01-01', '2027-01-01', { closed: true })];
    const usd = [charge('ok', 'per_order', 1), charge('usd', 'per_order', 1, 'USD')];
    expect(priceStay(stay({ product: { price: null, priceUnit: 'night', currency: 'EUR', timeZone: berlin }, rates: closed, charges: usd }))).toEqual({ kind: 'not_for_sale' });
    expect(priceStay(stay({ rates: closed, charges: usd }))).toEqual({ kind: 'currency_mismatch', service_charge_id: 'usd', currency: 'USD', product_currency: 'EUR' });
    expect(priceStay(stay({ rates: closed })).kind).toBe('restricted');
  });

  it('sums the lines into the total, in exact minor units', () => {
    const currencies = ['EUR', 'JPY', 'KWD'];
    const bases: ChargeBasis[] = ['per_order', 'per_unit', 'per_unit_per_period', 'percent_of_rent'];
    const input = fc.record({
      currency: fc.constantFrom(...currencies),
      unit: fc.constantFrom<PriceUnit>('night', 'day', 'hour'),
      price: fc.bigInt({ min: 0n, max: 10n ** 9n }),
      rates: fc.array(fc.record({ day: fc.integer({ min: 0, max: 12 }), price: fc.option(fc.bigInt({ min: 0n, max: 10n ** 9n })) }), { maxLength: 6 }),
      charges: fc.array(fc.record({ basis: fc.constantFrom(...bases), amount: fc.bigInt({ min: 0n, max: 10n ** 9n }), percent: fc.integer({ min: 0, max: 1_000_000 }) }), { maxLength: 5 }),
      start: fc.integer({ min: at('2026-03-20T00:00:00Z'), max: at('2026-04-05T00:00:00Z') }),
      length: fc.integer({ min: 1, max: 8 * dayMs }),
      quantity: fc.integer({ min: 1, max: 9 }),
    });
    fc.assert(
      fc.property(input, (generated) => {
        const exponent = currencyExponent(generated.currency) ?? 0;
        const money = (minor: bigint) => Number(textOf(minor, exponent));
        // One-day rates on distinct dates from 2026-03-20, so none share a date.
        const days = [...new Map(generated.rates.map((r) => [r.day, r])).values()];
        const rates = days.map((r) => {
          const from = new Date(at('2026-03-20T00:00:00Z') + r.day * dayMs).toISOString().slice(0, 10);
          const to = new Date(at('2026-03-20T00:00:00Z') + (r.day + 1) * dayMs).toISOString().slice(0, 10);
          return rate(`r${r.day}`, from, to, { price: r.price === null ? null : money(r.price) });
        });
        const charges = generated.charges.map((c, i) => charge(`c${i}`, c.basis, c.basis === 'percent_of_rent' ? Number(textOf(BigInt(c.percent), 4)) : money(c.amount), generated.currency));
        const end = generated.start + (generated.unit === 'hour' ? generated.length % (2 * dayMs) || 1 : generated.length);
        const product = { price: money(generated.price), priceUnit: generated.unit, currency: generated.currency, timeZone: berlin };
        const pricing = priceStay({ product, rates, charges, start: generated.start, end, quantity: generated.quantity });
        if (pricing.kind !== 'priced') throw new Error(`expected a price, got ${pricing.kind}`);
        const minor = (amount: number) => toMinor(amount, generated.currency);
        const sum = pricing.lines.reduce((total, line) => total + minor(line.amount), 0n);
        expect(minor(pricing.total)).toBe(sum);
        expect(pricing.periods).toBe(stayPeriods(generated.unit, berlin, generated.start, end).length);
        const rent = pricing.lines.filter((line) => line.kind === 'rent');
        expect(rent).toHaveLength(pricing.periods);
        for (const line of rent) expect(minor(line.amount)).toBe(minor(line.unit_price) * BigInt(generated.quantity));
      }),
      { numRuns: 200 },
    );
  });

  it('lists exactly the reasons a walk over the dates finds in random rates', () => {
    const rules = fc.record({ closed: fc.boolean(), closedToArrival: fc.boolean(), minStay: fc.option(fc.integer({ min: 1, max: 6 })), maxStay: fc.option(fc.integer({ min: 1, max: 6 })) });
    const input = fc.record({
      // Cut points (day offsets from 2026-10-20) paired into disjoint [from, to) ranges.
      cuts: fc.uniqueArray(fc.integer({ min: 0, max: 14 }), { maxLength: 10 }),
      rules: fc.array(rules, { minLength: 5, maxLength: 5 }),
      unit: fc.constantFrom<PriceUnit>('night', 'day', 'hour'),
      start: fc.integer({ min: at('2026-10-19T00:00:00Z'), max: at('2026-10-30T00:00:00Z') }),
      length: fc.integer({ min: 1, max: 7 * dayMs }),
    });
    const dateOf = (offset: number) => new Date(at('2026-10-20T00:00:00Z') + offset * dayMs).toISOString().slice(0, 10);
    fc.assert(
      fc.property(input, (generated) => {
        const cuts = [...generated.cuts].sort((a, b) => a - b);
        const rates: RateRule[] = [];
        for (let i = 0; i + 1 < cuts.length; i += 2) rates.push(rate(`r${i}`, dateOf(cuts[i]!), dateOf(cuts[i + 1]!), { ...generated.rules[i / 2]!, price: 50 }));
        const end = generated.start + (generated.unit === 'hour' ? generated.length % (2 * dayMs) || 1 : generated.length);
        const product = { price: 10, priceUnit: generated.unit, currency: 'EUR', timeZone: berlin };
        const pricing = priceStay({ product, rates, charges: [], start: generated.start, end, quantity: 1 });

        // The brute force: walk the periods' dates, checking every rate on every date.
        const dates = stayPeriods(generated.unit, berlin, generated.start, end).map((period) => period.date);
        const expected: Reason[] = [];
        const seen: string[] = [];
        for (const date of dates) {
          if (seen.includes(date)) continue;
          seen.push(date);
          for (const r of rates) if (r.from <= date && date < r.to && r.closed) expected.push({ rule: 'closed', rate_id: r.id, date });
        }
        const arrival = dates[0]!;
        for (const r of rates) {
          if (!(r.from <= arrival && arrival < r.to)) continue;
          if (r.closedToArrival) expected.push({ rule: 'closed_to_arrival', rate_id: r.id, date: arrival });
          if (r.minStay !== null && dates.length < r.minStay) expected.push({ rule: 'min_stay', rate_id: r.id, date: arrival, limit: r.minStay });
          if (r.maxStay !== null && dates.length > r.maxStay) expected.push({ rule: 'max_stay', rate_id: r.id, date: arrival, limit: r.maxStay });
        }
        expected.sort((a, b) => (`${a.date} ${a.rule}` < `${b.date} ${b.rule}` ? -1 : 1));

        if (expected.length === 0) expect(pricing.kind).toBe('priced');
        else expect(pricing).toEqual({ kind: 'restricted', reasons: expected });
      }),
      { numRuns: 300 },
    );
  });
});
