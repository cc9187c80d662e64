/**
 * Money. Amounts travel as JSON numbers in the currency's major unit (12.5 EUR) and are
 * computed as integer minor units in `bigint` (1250n cents), so sums and products are exact.
 * A number becomes minor units through its decimal text ({@link decimalOf}), never by
 * multiplying a float by 100. Exponents come from the ISO 4217 table of `currency-codes`.
 */
import { code as currencyCode } from 'currency-codes';
import { decimalOf, decimalText } from './decimal.js';

/** Why an amount was refused. */
export type MoneyReason = 'unknown_currency' | 'not_a_number' | 'negative' | 'too_precise' | 'too_large';

/** An amount, percent or currency that cannot be used; `message` completes "<field> …" for a 400. */
export class MoneyError extends Error {
  constructor(
    readonly reason: MoneyReason,
    message: string,
  ) {
    super(message);
    this.name = 'MoneyError';
  }
}

/**
 * The largest amount, in minor units: beyond it a JSON number no longer holds every integer,
 * so an amount could not be written back as it was computed.
 */
export const maxMinor = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The ISO 4217 codes whose minor unit is "N.A." (precious metals, bond-market units, the SDR,
 * the testing code, "no currency"): none is money a product is priced in. currency-codes
 * reads "N.A." as 0 (`parseInt(…) || 0`), which would price gold in whole troy ounces, so
 * they are listed here; test/unit/lib/money.test.ts checks the list against the ISO
 * table the package ships.
 */
export const withoutMinorUnit: ReadonlySet<string> = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

/**
 * The number of decimals of an ISO 4217 currency (EUR 2, JPY 0, KWD 3), or `undefined` for
 * an unknown code, a lower-case spelling, or a code without a minor unit (XAU).
 */
export function currencyExponent(code: string): number | undefined {
  if (typeof code !== 'string' || !/^[A-Z]{3}$/.test(code) || withoutMinorUnit.has(code)) return undefined;
  // Typed as a number, but checked: a later release may keep "N.A." as the table writes it.
  const digits: unknown = currencyCode(code)?.digits;
  return typeof digits === 'number' && Number.isInteger(digits) && digits >= 0 ? digits : undefined;
}

/** Whether `code` is a known ISO 4217 code with a numeric exponent. */
export function isCurrency(code: string): boolean {
  return currencyExponent(code) !== undefined;
}

function exponentOf(currency: string): number {
  const exponent = currencyExponent(currency);
  if (exponent === undefined) throw new MoneyError('unknown_currency', `${String(currency).slice(0, 16)} is not an ISO 4217 currency`);
  return exponent;
}

const decimalsAllowed = (exponent: number, currency: string): string => `must have ${exponent === 0 ? 'no decimals' : `at most ${exponent} decimal${exponent === 1 ? '' : 's'}`} for ${currency}`;

/**
 * `amount` (major units, a non-negative JSON number) as minor units of `currency`: 12.5 EUR →
 * 1250n. Throws {@link MoneyError} for an unknown currency, a value that is not a finite
 * number, a negative one, one with more decimals than the currency has (10.005 EUR), or one
 * beyond {@link maxMinor} minor units.
 */
export function toMinor(amount: number, currency: string): bigint {
  const exponent = exponentOf(currency);
  if (typeof amount !== 'number' || !Number.isFinite(amount)) throw new MoneyError('not_a_number', 'must be a number');
  if (amount < 0) throw new MoneyError('negative', 'must not be negative');
  const decimal = decimalOf(amount);
  if (decimal === undefined) throw new MoneyError('not_a_number', 'must be a number');
  if (decimal.scale > exponent) throw new MoneyError('too_precise', decimalsAllowed(exponent, currency));
  const minor = decimal.digits * 10n ** BigInt(exponent - decimal.scale);
  if (minor > maxMinor) throw new MoneyError('too_large', `must be at most ${decimalText(maxMinor, exponent)} ${currency}`);
  return minor;
}

/**
 * Minor units of `currency` as the JSON number of that exact decimal: 1250n EUR → 12.5.
 * Throws {@link MoneyError} `too_large` beyond {@link maxMinor} in magnitude, or when no JSON
 * number reads as that decimal (only possible with more than 15 significant digits: a
 * double holds 15 for certain), rather than answering a neighbouring amount.
 */
export function fromMinor(minor: bigint, currency: string): number {
  const exponent = exponentOf(currency);
  const magnitude = minor < 0n ? -minor : minor;
  const tooLarge = () => new MoneyError('too_large', `must be at most ${decimalText(maxMinor, exponent)} ${currency}`);
  if (magnitude > maxMinor) throw tooLarge();
  const text = decimalText(magnitude, exponent);
  const value = Number(text);
  const written = decimalOf(value);
  if (written === undefined || written.scale > exponent || written.digits * 10n ** BigInt(exponent - written.scale) !== magnitude) throw tooLarge();
  return minor < 0n ? -value : value;
}

/**
 * What is wrong with `amount` as a price in `currency`, as a message for a 400 ("must have at
 * most 2 decimals for EUR", "must be a number", "XYZ is not an ISO 4217 currency"), or
 * `undefined` when {@link toMinor} accepts it.
 */
export function amountProblem(amount: unknown, currency: string): string | undefined {
  return problemOf(() => toMinor(amount as number, currency));
}

/** The decimals a percent may have (33.3333 %). */
const percentDecimals = 4;

/**
 * `percent` (0–100, at most 4 decimals, read through its decimal text) of `minor`, rounded
 * half up (away from zero) to the minor unit: 7.5 % of 199n → 14.925 → 15n. Throws
 * {@link MoneyError} for a percent that is not a number, negative, above 100 (`too_large`) or
 * too precise.
 */
export function percentOf(minor: bigint, percent: number): bigint {
  if (typeof percent !== 'number' || !Number.isFinite(percent)) throw new MoneyError('not_a_number', 'must be a number');
  if (percent < 0) throw new MoneyError('negative', 'must not be negative');
  if (percent > 100) throw new MoneyError('too_large', 'must be at most 100');
  const decimal = decimalOf(percent);
  if (decimal === undefined) throw new MoneyError('not_a_number', 'must be a number');
  if (decimal.scale > percentDecimals) throw new MoneyError('too_precise', `must have at most ${percentDecimals} decimals`);
  // The percent in millionths of the whole (100 % = 10^6), so the division below is the only rounding.
  const millionths = decimal.digits * 10n ** BigInt(percentDecimals - decimal.scale);
  const magnitude = ((minor < 0n ? -minor : minor) * millionths + 500_000n) / 1_000_000n;
  return minor < 0n ? -magnitude : magnitude;
}

/** What is wrong with `percent` for {@link percentOf}, as a message for a 400, or `undefined`. */
export function percentProblem(percent: unknown): string | undefined {
  return problemOf(() => percentOf(0n, percent as number));
}

function problemOf(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof MoneyError) return error.message;
    throw error;
  }
}
