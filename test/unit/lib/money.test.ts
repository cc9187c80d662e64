import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MoneyError, amountProblem, currencyExponent, fromMinor, isCurrency, maxMinor, percentOf, percentProblem, toMinor, withoutMinorUnit } from '../../../src/lib/money.js';

/** The reason `run` throws with, or `undefined` when it does not throw. */
function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof MoneyError) return error.reason;
    throw error;
  }
}

/** `minor / 10^exponent` as decimal text, written here by hand so the tests do not lean on the module's own helper. */
function textOf(minor: bigint, exponent: number): string {
  const digits = minor.toString().padStart(exponent + 1, '0');
  return exponent === 0 ? digits : `${digits.slice(0, digits.length - exponent)}.${digits.slice(digits.length - exponent)}`;
}

const currencies = ['EUR', 'JPY', 'KWD', 'CLF', 'USD', 'BHD'];

describe('currencies', () => {
  it('reads exponents from the ISO 4217 table', () => {
    expect(currencyExponent('EUR')).toBe(2);
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('KWD')).toBe(3);
    expect(currencyExponent('BHD')).toBe(3);
    expect(currencyExponent('CLF')).toBe(4);
  });

  it('knows no code without a numeric exponent, lower-case spellings or made-up codes', () => {
    for (const code of ['XAU', 'eur', 'XYZ', 'EURO', '', 'E U']) {
      expect(currencyExponent(code), code).toBeUndefined();
      expect(isCurrency(code), code).toBe(false);
    }
    expect(isCurrency('EUR')).toBe(true);
  });

  it('lists exactly the codes whose minor unit the ISO table shipped with currency-codes gives as N.A.', () => {
    const table = readFileSync(join(dirname(createRequire(import.meta.url).resolve('currency-codes/package.json')), 'iso-4217-list-one.xml'), 'utf8');
    const entries = [...table.matchAll(/<Ccy>([A-Z]{3})<\/Ccy>[\s\S]*?<CcyMnrUnts>([^<]*)<\/CcyMnrUnts>/g)];
    expect(entries.length).toBeGreaterThan(150);
    const withoutDigits = new Set(entries.filter(([, , units]) => !/^\d+$/.test(units ?? '')).map(([, code]) => code));
    expect([...withoutDigits].sort()).toEqual([...withoutMinorUnit].sort());
    // Every other code of the table has the exponent the table gives it.
    for (const [, code, units] of entries) if (!withoutDigits.has(code)) expect(currencyExponent(code ?? ''), code).toBe(Number(units));
  });
});

describe('toMinor', () => {
  it('converts major units to minor units exactly', () => {
    expect(toMinor(12.5, 'EUR')).toBe(1250n);
    expect(toMinor(0, 'EUR')).toBe(0n);
    expect(toMinor(10.005, 'KWD')).toBe(10005n);
    expect(toMinor(1500, 'JPY')).toBe(1500n);
    expect(toMinor(Number.MAX_SAFE_INTEGER, 'JPY')).toBe(maxMinor);
  });

  it('never passes through a float: values that 100 × x gets wrong come out right', () => {
    expect(1.15 * 100).not.toBe(115);
    expect(toMinor(1.1, 'EUR')).toBe(110n);
    expect(toMinor(4.35, 'EUR')).toBe(435n);
    expect(toMinor(1.15, 'EUR')).toBe(115n);
    expect(toMinor(0.07, 'EUR')).toBe(7n);
    expect(toMinor(1e-4, 'CLF')).toBe(1n);
    expect(toMinor(1e15, 'JPY')).toBe(10n ** 15n);
  });

  it('refuses what is not a price', () => {
    expect(reasonOf(() => toMinor(10.005, 'EUR'))).toBe('too_precise');
    expect(reasonOf(() => toMinor(0.1 + 0.2, 'EUR'))).toBe('too_precise');
    expect(reasonOf(() => toMinor(1e-7, 'EUR'))).toBe('too_precise');
    expect(reasonOf(() => toMinor(0.5, 'JPY'))).toBe('too_precise');
    expect(reasonOf(() => toMinor('12' as unknown as number, 'EUR'))).toBe('not_a_number');
    expect(reasonOf(() => toMinor(Number.NaN, 'EUR'))).toBe('not_a_number');
    expect(reasonOf(() => toMinor(Number.POSITIVE_INFINITY, 'EUR'))).toBe('not_a_number');
    expect(reasonOf(() => toMinor(-1, 'EUR'))).toBe('negative');
    expect(reasonOf(() => toMinor(1.5e21, 'EUR'))).toBe('too_large');
    expect(reasonOf(() => toMinor(Number.MAX_SAFE_INTEGER + 1, 'JPY'))).toBe('too_large');
    expect(reasonOf(() => toMinor(90071992547410, 'EUR'))).toBe('too_large');
    expect(reasonOf(() => toMinor(1, 'XAU'))).toBe('unknown_currency');
  });

  it('explains the problem for a 400', () => {
    expect(amountProblem(12.5, 'EUR')).toBeUndefined();
    expect(amountProblem(10.005, 'EUR')).toBe('must have at most 2 decimals for EUR');
    expect(amountProblem(0.5, 'JPY')).toBe('must have no decimals for JPY');
    expect(amountProblem('12', 'EUR')).toBe('must be a number');
    expect(amountProblem(null, 'EUR')).toBe('must be a number');
    expect(amountProblem(-1, 'EUR')).toBe('must not be negative');
    expect(amountProblem(1e300, 'EUR')).toBe('must be at most 90071992547409.91 EUR');
    expect(amountProblem(1, 'XYZ')).toBe('XYZ is not an ISO 4217 currency');
  });

  it('reads any decimal of up to 15 significant digits exactly: toMinor(Number(text of m)) = m', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }), fc.constantFrom(...currencies), (minor, currency) => {
        expect(toMinor(Number(textOf(minor, currencyExponent(currency) ?? 0)), currency)).toBe(minor);
      }),
    );
  });
});

describe('fromMinor', () => {
  it('writes the exact decimal as a number', () => {
    expect(fromMinor(1250n, 'EUR')).toBe(12.5);
    expect(fromMinor(5n, 'KWD')).toBe(0.005);
    expect(fromMinor(115n, 'EUR')).toBe(1.15);
    expect(fromMinor(0n, 'EUR')).toBe(0);
    expect(fromMinor(-1250n, 'EUR')).toBe(-12.5);
    expect(fromMinor(maxMinor, 'JPY')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses amounts no JSON number holds exactly', () => {
    expect(reasonOf(() => fromMinor(maxMinor + 1n, 'JPY'))).toBe('too_large');
    expect(reasonOf(() => fromMinor(-maxMinor - 1n, 'JPY'))).toBe('too_large');
    // 90071992547409.91 has 16 significant digits: the nearest double reads 90071992547409.9.
    expect(reasonOf(() => fromMinor(9007199254740991n, 'EUR'))).toBe('too_large');
    expect(reasonOf(() => fromMinor(1n, 'XAU'))).toBe('unknown_currency');
  });

  it('round-trips decimal amounts built from integers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 0, max: 9_999 }), fc.constantFrom(...currencies), (whole, fraction, currency) => {
        const exponent = currencyExponent(currency) ?? 0;
        const fractionText = String(fraction % 10 ** exponent).padStart(exponent, '0');
        const amount = Number(exponent === 0 ? String(whole) : `${whole}.${fractionText}`);
        const minor = toMinor(amount, currency);
        expect(minor).toBe(BigInt(whole) * 10n ** BigInt(exponent) + BigInt(exponent === 0 ? 0 : fraction % 10 ** exponent));
        expect(fromMinor(minor, currency)).toBe(amount);
      }),
    );
  });

  it('answers every minor amount up to the limit exactly or refuses it', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: maxMinor }), fc.constantFrom(...currencies), (minor, currency) => {
        const reason = reasonOf(() => fromMinor(minor, currency));
        if (reason === undefined) expect(toMinor(fromMinor(minor, currency), currency)).toBe(minor);
        else expect(reason).toBe('too_large');
      }),
    );
  });
});

describe('percentOf', () => {
  it('rounds half up to the minor unit', () => {
    expect(percentOf(199n, 7.5)).toBe(15n); // 0.14925 EUR
    expect(percentOf(3n, 33.3333)).toBe(1n); // 0.0099999 EUR
    expect(percentOf(1n, 50)).toBe(1n); // exactly half a cent
    expect(percentOf(1n, 49.9999)).toBe(0n);
    expect(percentOf(12345n, 100)).toBe(12345n);
    expect(percentOf(12345n, 0)).toBe(0n);
    expect(percentOf(-1n, 50)).toBe(-1n);
  });

  it('refuses percents outside 0–100 or with more than 4 decimals', () => {
    expect(reasonOf(() => percentOf(100n, 0.00005))).toBe('too_precise');
    expect(reasonOf(() => percentOf(100n, 100.5))).toBe('too_large');
    expect(reasonOf(() => percentOf(100n, -1))).toBe('negative');
    expect(reasonOf(() => percentOf(100n, Number.NaN))).toBe('not_a_number');
    expect(percentProblem(12.34567)).toBe('must have at most 4 decimals');
    expect(percentProblem('5')).toBe('must be a number');
    expect(percentProblem(7.5)).toBeUndefined();
  });

  it('lies within half a minor unit of the exact product, halves rounding up', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 1_000_000 }), (minor, tenThousandths) => {
        const percent = Number(textOf(BigInt(tenThousandths), 4));
        // The exact share is minor × tenThousandths / 10^6; scaled by 10^6 to stay in integers.
        const exact = minor * BigInt(tenThousandths);
        const scaled = percentOf(minor, percent) * 1_000_000n;
        expect(scaled - exact).toBeLessThanOrEqual(500_000n);
        expect(exact - scaled).toBeLessThan(500_000n);
      }),
    );
  });
});
