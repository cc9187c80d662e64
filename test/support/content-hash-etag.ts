import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src/core/etag.js';

/**
 * The ETag formula before migration 0023: an unkeyed SHA-256 over the previous ETag and the
 * full stored record. Tests recompute it to show no ETag is still a function of hidden fields.
 */
export function contentHashEtag(previous: string | null, record: Readonly<Record<string, unknown>>): string {
  return `"${createHash('sha256')
    .update(previous ?? '')
    .update('\n')
    .update(canonicalJson(record))
    .digest('base64url')}"`;
}
