/**
 * RFC 4180 CSV cells. Values are quoted when they hold a comma, quote or line break;
 * cells that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR) are
 * prefixed with `'` (OWASP CSV injection guidance).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line (CRLF-terminated, as RFC 4180 says). */
export function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
