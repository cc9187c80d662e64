import { createHash, randomBytes } from 'node:crypto';

/**
 * A fresh strong ETag for a record's new version: SHA-256 over 128 random bits, quoted. It
 * says nothing about the content, so it cannot confirm guesses of fields the caller may not
 * read; every write gets a new value, so a stale If-Match never matches again (no ABA).
 */
export function nextEtag(): string {
  return `"${createHash('sha256').update(randomBytes(16)).digest('base64url')}"`;
}

/** JSON with object keys sorted, so equal values serialise equally (idempotency fingerprints). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
