/**
 * Money for display only. The API sends amounts as JSON numbers in the currency's major unit
 * (12.5 EUR) and computes with them exactly itself; the console never adds, multiplies or
 * rounds them: it formats what it was given with the currency's own decimals.
 */

const formats = new Map<string, Intl.NumberFormat | undefined>();

function formatOf(currency: string): Intl.NumberFormat | undefined {
  if (!formats.has(currency)) {
    let format: Intl.NumberFormat | undefined;
    try {
      format = new Intl.NumberFormat('en', { style: 'currency', currency });
    } catch {
      format = undefined; // not a currency code Intl knows
    }
    formats.set(currency, format);
  }
  return formats.get(currency);
}

/** `245` EUR → `€245.00`, `1000` JPY → `¥1,000`; `—` for no amount; the bare number and code for an unknown currency. */
export function formatMoney(amount: number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined) return '—';
  const format = currency ? formatOf(currency) : undefined;
  if (!format) return currency ? `${amount} ${currency}` : String(amount);
  return format.format(amount);
}

/** How many decimals the currency has (EUR 2, JPY 0, KWD 3); 2 when Intl does not know it. */
export function currencyDecimals(currency: string): number {
  return formatOf(currency)?.resolvedOptions().maximumFractionDigits ?? 2;
}

/** The `step` of a number input for amounts of the currency: `0.01` for EUR, `1` for JPY. */
export function amountStep(currency: string): string {
  const decimals = currencyDecimals(currency);
  return decimals === 0 ? '1' : `0.${'0'.repeat(decimals - 1)}1`;
}

/** `EUR` → `Euro`, or the code itself. */
export function currencyName(currency: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'currency' }).of(currency) ?? currency;
  } catch {
    return currency;
  }
}
