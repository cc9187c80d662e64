import { dateIn, timeIn } from './days.js';
import type { CalendarImport } from './records.js';

/** An import's health for people (the badge's text: never colour alone). */
export const importStatusText: Record<CalendarImport['status'], string> = { ok: 'OK', failing: 'Failing', stale: 'Stale' };

/** What an import is called: its name, or the host of its feed. */
export function importName(entry: Pick<CalendarImport, 'name' | 'url'>): string {
  if (entry.name) return entry.name;
  try {
    return new URL(entry.url).host;
  } catch {
    return 'Unnamed import';
  }
}

/**
 * A feed URL shortened for a table cell: the host and the last part of the path
 * (`www.airbnb.com/…/12345.ics`), without the query, which often carries the channel's secret.
 */
export function shortUrl(url: string): string {
  try {
    const { host, pathname } = new URL(url);
    const parts = pathname.split('/').filter(Boolean);
    const last = parts.at(-1);
    if (!last) return host;
    return parts.length > 1 ? `${host}/…/${last}` : `${host}/${last}`;
  } catch {
    return url.length > 40 ? `${url.slice(0, 39)}…` : url;
  }
}

const midnight = (instant: string, zone: string) => timeIn(instant, zone).endsWith('00:00');

/** When an event runs, in the product's zone: dates alone for whole days (`10 Jul 2027 – 13 Jul 2027`). */
export function eventSpan(start: string, end: string, zone: string): string {
  if (midnight(start, zone) && midnight(end, zone)) return `${dateIn(start, zone)} – ${dateIn(end, zone)}`;
  return `${timeIn(start, zone)} – ${timeIn(end, zone)}`;
}

/** `1 event`, `3 conflicts`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** What a sync (the first, or Sync now) came to, in a sentence for the live region. */
export function syncOutcome(entry: CalendarImport): string {
  const name = importName(entry);
  if (entry.status === 'failing') return `${name}: the sync failed (${entry.last_error ?? 'no reason given'}); its blocks are unchanged.`;
  const conflicts = entry.conflicts?.length ?? 0;
  const parts = [count(entry.events, 'event') + ' blocked'];
  if (conflicts > 0) parts.push(`${count(conflicts, 'conflict')} not applied`);
  if (entry.skipped > 0) parts.push(`${entry.skipped} skipped`);
  return `${name}: synced, ${parts.join(', ')}.`;
}

/**
 * Copies text to the clipboard: the Clipboard API where the page may use it, otherwise the
 * field's selection and `execCommand('copy')` (older browsers, or a page the browser will not
 * let write). `false`: nothing was copied; the field's text is then left selected for Ctrl+C.
 */
export async function copyText(text: string, field: HTMLInputElement | null): Promise<boolean> {
  try {
    if (window.isSecureContext && typeof navigator.clipboard?.writeText === 'function') {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission, page not focused): try the selection below.
  }
  if (!field) return false;
  field.focus();
  field.select();
  try {
    // Deprecated, but the only way left where the Clipboard API is missing or refused.
    return document.execCommand('copy');
  } catch {
    return false;
  }
}
