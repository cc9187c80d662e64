import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from '../../query/limits.js';
import { ref } from './types.js';
import type { OpenApiObject } from './types.js';

function header(description: string, schema: OpenApiObject = { type: 'string' }): OpenApiObject {
  return { description, schema };
}

/** `components.headers`: response headers shared by operations. */
export const headerComponents: Record<string, OpenApiObject> = {
  ETag: header('Strong, quoted and opaque: SHA-256 based over random bits, nothing of the content; changes on every write. Send it back in `If-Match`.'),
  Location: header('Absolute URL of the created record.', { type: 'string', format: 'uri' }),
  'X-Total-Count': header('Number of matching records.', { type: 'integer', minimum: 0 }),
  'X-Page': header('This page, starting at 1.', { type: 'integer', minimum: 1 }),
  'X-Per-Page': header('Page size.', { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE }),
  'X-Total-Pages': header('Number of pages (at least 1).', { type: 'integer', minimum: 1 }),
  Link: header('RFC 8288 links: `first`, `prev`, `next`, `last` on lists; `deprecation` on deprecated operations.'),
  'X-Request-Id': header('Identifies the request in the service logs.'),
  'WWW-Authenticate': header('RFC 6750 / RFC 9449 challenges (`Bearer`, `DPoP`), with `error="invalid_token"` or `"insufficient_scope"` when applicable.'),
  Allow: header('Methods the path supports.'),
  'Retry-After': header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }),
  RateLimit: header('Remaining quota of the endpoint group (IETF RateLimit header fields).'),
  'RateLimit-Policy': header('Quota policy of the endpoint group (IETF RateLimit header fields).'),
  'Cache-Control': header('Caching directives.'),
  'Content-Disposition': header('`attachment; filename="…"` of an export.'),
  'DPoP-Nonce': header('Server-issued nonce to put in the next DPoP proof (RFC 9449 §8).'),
  Deprecation: header('RFC 9745: when the operation was deprecated, as `@<epoch seconds>`.', { type: 'string', pattern: '^@-?\\d+$' }),
  Sunset: header('RFC 8594: HTTP-date after which the operation may be removed.'),
  'Idempotency-Replayed': header('`true` when the answer is the stored answer of an earlier request with the same `Idempotency-Key`.', { type: 'string', enum: ['true'] }),
};

/** The paging headers every list answer carries (`src/http/pagination.ts`), as a 200 response's `headers`. */
export function listHeaders(): OpenApiObject {
  return Object.fromEntries(['X-Total-Count', 'X-Page', 'X-Per-Page', 'X-Total-Pages', 'Link'].map((name) => [name, ref('headers', name)]));
}

/** `components.parameters`: parameters shared by operations. */
export const parameterComponents: Record<string, OpenApiObject> = {
  page: {
    name: 'page',
    in: 'query',
    description: 'Page number, starting at 1.',
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
  },
  per_page: {
    name: 'per_page',
    in: 'query',
    description: `Page size, 1 to ${MAX_PER_PAGE}.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
  },
  id: {
    name: 'id',
    in: 'path',
    required: true,
    description: 'Record identifier (`_id`).',
    schema: { type: 'string', minLength: 1, maxLength: 200 },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: true,
    description: 'The current ETag of the record: 428 without it, 412 when stale. `*` and weak tags never match.',
    schema: { type: 'string' },
  },
  XTenantId: {
    name: 'X-Tenant-Id',
    in: 'header',
    required: false,
    description: 'Act in this tenant node. Needs a `system`-level client (403 otherwise); an unknown node is a 400.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9-]{1,64}$' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retried POST safe (draft-ietf-httpapi-idempotency-key-header): the first answer is stored for 24 h per client and URL and replayed for the same body (`Idempotency-Replayed: true`); a different body is a 422, a repeat while the first runs a 409.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
  DPoP: {
    name: 'DPoP',
    in: 'header',
    required: false,
    description: 'RFC 9449 proof JWT (`typ: dpop+jwt`): with `Authorization: DPoP <token>` on API calls (claims `jti`, `htm`, `htu`, `iat`, `ath`), or on the token request to bind the token.',
    schema: { type: 'string' },
  },
};
