/**
 * Parsers for the metrics and security.txt settings. Each fails the boot with a message
 * naming the variable its declaration gives it.
 */
import { parseCidr } from '../lib/ip-allowlist.js';
import { commaList } from './setting-kinds.js';
import type { Parser } from './setting-kinds.js';

/** Comma-separated CIDRs; unset gives the default, an empty value gives none. */
export const cidrList: Parser<readonly string[], readonly string[]> = (raw, { name, fallback }) => {
  const list = raw === undefined ? [...fallback] : commaList(raw);
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

/** An optional secret of at least `minLength` characters (a short one is guessable). */
export function optionalSecret(minLength: number): Parser<string | undefined> {
  return (raw, { name }) => {
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

/** Comma-separated URIs with one of `schemes` (e.g. `mailto:`); unset gives the default. */
export function uriList(schemes: readonly string[]): Parser<readonly string[], readonly string[]> {
  return (raw, { name, fallback }) => {
    const list = raw === undefined || raw === '' ? [...fallback] : commaList(raw);
    return Object.freeze(list.map((uri) => checkUri(name, uri, schemes)));
  };
}

/** An optional URI with one of `schemes`. */
export function optionalUri(schemes: readonly string[]): Parser<string | undefined> {
  return (raw, { name }) => (raw === undefined || raw === '' ? undefined : checkUri(name, raw, schemes));
}

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** An optional ISO 8601 date-time with a zone, normalised to UTC (`…Z`). */
export const optionalTimestamp: Parser<string | undefined> = (raw, { name }) => {
  if (raw === undefined || raw === '') return undefined;
  const time = Date.parse(raw);
  if (!isoTimestamp.test(raw) || Number.isNaN(time)) throw new Error(`${name} must be an ISO 8601 date-time with a time zone, got "${raw.slice(0, 40)}"`);
  return new Date(time).toISOString();
};
