import { createHash } from 'node:crypto';

/**
 * Next strong ETag of a record: SHA-256 over the previous ETag and the new content. Chaining
 * the previous value means a record changed back to earlier content still gets a new ETag,
 * so a stale If-Match can never match again (no ABA).
 */
export function nextEtag(previous: string | null, record: Readonly<Record<string, unknown>>): string {
  const hash = createHash('sha256');
  hash.update(previous ?? '');
  hash.update('\n');
  hash.update(canonicalJson(record));
  return `"${hash.digest('base64url')}"`;
}

/** JSON with object keys sorted, so equal records hash equally. */
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
