import { ApiError } from '../../http/errors.js';
import type { ErrorCode } from '../../http/errors.js';
import { problemContentType } from '../../http/problem.js';
import { ref } from './types.js';
import type { OpenApiObject, Schema } from './types.js';

/** Every problem `code`; a `Record` so the compiler flags a code added to `errors.ts` but not here. */
const codes: Readonly<Record<ErrorCode, true>> = {
  validation_failed: true,
  malformed_json: true,
  malformed_request: true,
  request_timeout: true,
  headers_too_large: true,
  unauthenticated: true,
  invalid_token: true,
  insufficient_scope: true,
  mfa_required: true,
  invalid_grant: true,
  daily_limit_reached: true,
  ip_not_allowed: true,
  tenant_forbidden: true,
  field_forbidden: true,
  not_found: true,
  method_not_allowed: true,
  cascade_conflict: true,
  conflict: true,
  idempotency_key_in_use: true,
  idempotency_key_reused: true,
  event_id_reused: true,
  legal_hold: true,
  capacity_exceeded: true,
  product_unavailable: true,
  invalid_transition: true,
  managed_by_order: true,
  managed_by_calendar: true,
  not_for_sale: true,
  stay_restricted: true,
  rate_overlap: true,
  currency_mismatch: true,
  invalid_quote: true,
  precondition_failed: true,
  payload_too_large: true,
  unsupported_media_type: true,
  precondition_required: true,
  rate_limited: true,
  service_unavailable: true,
  internal_error: true,
};

const errorCodes = Object.keys(codes) as ErrorCode[];

/** The `code`s a status can carry, read from the error catalogue itself. */
function codesOf(status: number): ErrorCode[] {
  return errorCodes.filter((code) => new ApiError(code).status === status);
}

/** The shared RFC 9457 problem document. */
export const problemSchema: Schema = {
  type: 'object',
  description: 'RFC 9457 problem details. `code` is stable and machine-readable; `detail` is safe human text.',
  properties: {
    type: { type: 'string', format: 'uri', description: 'Problem type URI, one per `code`.' },
    title: { type: 'string', description: 'Generic title of the problem type.' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'What went wrong in this request.' },
    instance: { type: 'string', format: 'uri-reference', description: 'The request path.' },
    code: { type: 'string', enum: errorCodes },
    errors: {
      type: 'array',
      description: 'One entry per problem with the request (validation).',
      items: {
        type: 'object',
        properties: { field: { type: 'string' }, message: { type: 'string' } },
        required: ['field', 'message'],
      },
    },
    blocking_resources: { type: 'array', items: { type: 'string' }, description: 'On `cascade_conflict`: the child resources that block the delete.' },
    holds: { type: 'array', items: { type: 'string' }, description: 'On `legal_hold`: ids of the active legal holds that block the delete, erasure or purge.' },
    available: { type: 'integer', minimum: 0, description: 'On `capacity_exceeded`: the fewest units free at any instant of the requested interval (not counting the booking itself).' },
    conflicts: { type: 'array', items: { type: 'string' }, maxItems: 100, description: 'On `capacity_exceeded`: ids of the overlapping bookings the caller may read, the first 100 by start time.' },
    conflicts_truncated: { type: 'boolean', description: 'On `capacity_exceeded`: true when more bookings overlap than `conflicts` lists.' },
    allowed: { type: 'array', items: { type: 'string' }, description: 'On `invalid_transition`: the statuses the booking may change to from its current one.' },
  },
  required: ['type', 'title', 'status', 'detail', 'instance', 'code'],
};

/** The problem responses operations refer to, by status. */
const problemResponses: readonly { status: string; name: string; text: string; headers?: readonly string[] }[] = [
  { status: '400', name: 'BadRequest', text: 'The request is invalid: body, query parameter, filter, sort, fields or header.' },
  { status: '401', name: 'Unauthorized', text: 'No, or an invalid, access token.', headers: ['WWW-Authenticate'] },
  {
    status: '403',
    name: 'Forbidden',
    text: 'The token lacks the capability, the write would grant or take control of capabilities the caller lacks (an API client or a user role above its own), the source address is not allowed, or a field or tenant is off limits.',
    headers: ['WWW-Authenticate'],
  },
  { status: '404', name: 'NotFound', text: "No such record, soft-deleted, or outside the caller's tenants." },
  { status: '405', name: 'MethodNotAllowed', text: 'The path exists but not with this method (any path, any method not listed for it).', headers: ['Allow'] },
  {
    status: '409',
    name: 'Conflict',
    text: "The record still has live child records (cascade deny), an active legal hold covers it (`holds`), a booking would exceed the product's units (`capacity_exceeded` with `available` and `conflicts`), the product takes no bookings (`product_unavailable`), a status change is not allowed (`invalid_transition` with `allowed`), or a request with the same `Idempotency-Key` is still running.",
  },
  { status: '422', name: 'UnprocessableContent', text: 'The `Idempotency-Key` was first used with a different request body.' },
  { status: '412', name: 'PreconditionFailed', text: '`If-Match` is not the current ETag; read the record again and retry.' },
  { status: '413', name: 'PayloadTooLarge', text: 'The body exceeds BODY_LIMIT_BYTES (100 KiB by default).' },
  { status: '415', name: 'UnsupportedMediaType', text: 'The body is not `application/json`, names a charset other than UTF-8, or carries a `Content-Encoding` (only unencoded bodies are accepted).' },
  { status: '428', name: 'PreconditionRequired', text: '`If-Match` is missing.' },
  { status: '429', name: 'TooManyRequests', text: 'Rate limit of the endpoint group exceeded.', headers: ['Retry-After', 'RateLimit', 'RateLimit-Policy'] },
  { status: 'default', name: 'ServerError', text: 'Unexpected failure (500) or a transient storage failure (503 with Retry-After).', headers: ['Retry-After'] },
];

/** Component name of the problem response of a status (`'404'` → `NotFound`). */
export function problemResponseName(status: string): string {
  const entry = problemResponses.find((r) => r.status === status);
  if (!entry) throw new Error(`no problem response for ${status}`);
  return entry.name;
}

/** `components.responses`: one problem response per status. */
export function problemResponseComponents(): Record<string, OpenApiObject> {
  const out: Record<string, OpenApiObject> = {};
  for (const entry of problemResponses) {
    const statusCodes = entry.status === 'default' ? [...codesOf(500), ...codesOf(503)] : codesOf(Number(entry.status));
    const response: OpenApiObject = {
      description: `${entry.text} Codes: ${statusCodes.map((c) => `\`${c}\``).join(', ')}.`,
      content: { [problemContentType.split(';')[0] ?? 'application/problem+json']: { schema: ref('schemas', 'Problem') } },
    };
    if (entry.headers) response.headers = Object.fromEntries(entry.headers.map((h) => [h, ref('headers', h)]));
    out[entry.name] = response;
  }
  return out;
}

/** Refs to the problem responses of some statuses, ready for an operation's `responses`. */
export function problems(...statuses: string[]): Record<string, OpenApiObject> {
  return Object.fromEntries(statuses.map((s) => [s, ref('responses', problemResponseName(s))]));
}
