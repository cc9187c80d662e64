/**
 * Parsers for the metrics and security.txt settings. Each fails the boot with a message
 * naming the variable, like the parsers in `settings.ts`.
 */
import { parseCidr } from '../lib/ip-allowlist.js';

function items(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Comma-separated CIDRs; unset gives `fallback`, an empty value gives none. */
export function cidrList(name: string, fallback: readonly string[]) {
  return (raw: string | undefined): readonly string[] => {
    const list = raw === undefined ? [...fallback] : items(raw);
    for (const entry of list) {
      try {
        parseCidr(entry);
      } catch (error) {
        // No `cause`: main.ts prints a cause with its stack, and the message says it all.
        throw new Error(`${name}: ${(error as Error).message}`);
      }
    }
    return Object.freeze(list);
  };
}

/** An optional secret of at least `minLength` characters (a short one is guessable). */
export function optionalSecret(name: string, minLength: number) {
  return (raw: string | undefined): string | undefined => {
    if (raw === undefined || raw === '') return undefined;
    if (raw.length < minLength || /\s/.test(raw)) throw new Error(`${name} must be at least ${minLength} characters without spaces`);
    return raw;
  };
}

function checkUri(name: string, text: string, schemes: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name}: "${text.slice(0, 80)}" is not an absolute URI`);
  }
  if (!schemes.includes(url.protocol)) throw new Error(`${name}: "${text.slice(0, 80)}" must use ${schemes.join(', ')}`);
  return text;
}

/** Comma-separated URIs with one of `schemes` (e.g. `mailto:`); unset gives `fallback`. */
export function uriList(name: string, schemes: readonly string[], fallback: readonly string[]) {
  return (raw: string | undefined): readonly string[] => {
    const list = raw === undefined || raw === '' ? [...fallback] : items(raw);
    return Object.freeze(list.map((uri) => checkUri(name, uri, schemes)));
  };
}

/** An optional URI with one of `schemes`. */
export function optionalUri(name: string, schemes: readonly string[]) {
  return (raw: string | undefined): string | undefined => (raw === undefined || raw === '' ? undefined : checkUri(name, raw, schemes));
}

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** An optional ISO 8601 date-time with a zone, normalised to UTC (`…Z`). */
export function optionalTimestamp(name: string) {
  return (raw: string | undefined): string | undefined => {
    if (raw === undefined || raw === '') return undefined;
    const time = Date.parse(raw);
    if (!isoTimestamp.test(raw) || Number.isNaN(time)) throw new Error(`${name} must be an ISO 8601 date-time with a time zone, got "${raw.slice(0, 40)}"`);
    return new Date(time).toISOString();
  };
}
