/**
 * Exact decimals for money: a JS number is read through its shortest decimal text
 * (`String(n)`, the text JSON carries), never through float arithmetic, so `1.15` is 115
 * hundredths and not `1.15 * 100` = 114.99999999999999.
 */

/** `digits / 10^scale`, exactly; `digits` is never negative here, `scale` never below 0. */
export interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

/** `String(n)` of a finite non-negative number: `123`, `0.5`, `1e-7`, `1.5e+21`. */
const numberText = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * The exact decimal a finite, non-negative number is written as (`String(n)`), trailing
 * zeros of the fraction dropped; `undefined` for anything else (NaN, ±Infinity, negatives).
 */
export function decimalOf(value: number): Decimal | undefined {
  const match = numberText.exec(String(value));
  if (!match) return undefined;
  const [, whole = '', fraction = '', exponent = '0'] = match;
  let digits = BigInt(whole + fraction);
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  while (scale > 0 && digits % 10n === 0n) {
    digits /= 10n;
    scale -= 1;
  }
  return { digits, scale };
}

/** `digits / 10^scale` as decimal text: `-12.50` for (-1250n, 2), `7` for (7n, 0). */
export function decimalText(digits: bigint, scale: number): string {
  const sign = digits < 0n ? '-' : '';
  const text = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, '0');
  if (scale === 0) return sign + text;
  return `${sign}${text.slice(0, -scale)}.${text.slice(-scale)}`;
}
