import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findDuplicateKey } from '../core/duplicate-json-keys.js';
import { charsets, contentCodings } from './body-encoding.js';
import { ApiError } from './errors.js';

type Done = (error: Error | null, body?: unknown) => void;
type Parse = (request: FastifyRequest, body: string, done: Done) => void;

/** A DELETE carries no content; some clients still label its empty body with a type. */
function isEmptyDelete(request: FastifyRequest, body: Buffer): boolean {
  return request.method === 'DELETE' && body.length === 0;
}

/**
 * Why a JSON body cannot be read as it is, if it cannot: a content coding (gzip, br, …;
 * RFC 9110 §15.5.16 names the 415 and `Accept-Encoding` the codings that would do), or a
 * charset other than UTF-8, the only encoding of JSON (RFC 8259 §8.1).
 */
function unreadable(request: FastifyRequest): ApiError | undefined {
  const codings = contentCodings(request.headers['content-encoding']);
  if (codings.length > 0) {
    return new ApiError('unsupported_media_type', 'The service accepts only unencoded bodies: send the body without Content-Encoding', {
      headers: { 'accept-encoding': 'identity' },
      privateReason: `content-encoding ${codings.join(', ').slice(0, 100)}`,
    });
  }
  const other = charsets(request.headers['content-type']).find((charset) => charset !== 'utf-8');
  if (other !== undefined) return new ApiError('unsupported_media_type', 'JSON bodies are UTF-8: send charset=utf-8 or no charset', { privateReason: `charset ${other.slice(0, 100)}` });
  return undefined;
}

/**
 * Makes JSON the only body format in the calling plugin's (encapsulated) scope: Fastify's
 * JSON parser with `__proto__` / `constructor.prototype` and repeated member names refused, and a 415 for every
 * other content type (Fastify would otherwise read text/plain bodies and answer a
 * confusing 400), for an encoded body and for a charset other than UTF-8; bytes that are not
 * valid UTF-8 are a 400 `malformed_json`, as lone surrogate escapes are. An empty DELETE
 * body is accepted whatever its declared type, an empty JSON body on any method as no body
 * (`rawBody` is then ''; actions that need a body answer 400 "body: is empty").
 */
export function installJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error') as Parse;
  app.removeAllContentTypeParsers();
  // Bytes, not a string: decoding to a string would turn invalid UTF-8 into U+FFFD unseen.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    if (isEmptyDelete(request, body)) return done(null, undefined);
    const refusal = unreadable(request);
    if (refusal) return done(refusal, undefined);
    // JSON is UTF-8 (RFC 8259 §8.1): bytes that are not are malformed, not something to repair.
    if (!isUtf8(body)) return done(new ApiError('malformed_json', 'The body is not valid UTF-8'), undefined);
    // Kept for signature checks over the exact bytes (incoming webhooks).
    const text = (request.rawBody = body.toString('utf8'));
    // Clients that always label requests JSON send bodiless actions (erase, retry, …) this
    // way: no body. An action that needs one refuses it, seeing rawBody '' (`handlers/execute.ts`).
    if (text === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      // JSON.parse keeps the last of two equal member names and drops the first unseen; a strict body refuses both.
      const repeated = findDuplicateKey(text);
      if (repeated !== undefined) return done(new ApiError('malformed_json', `The body repeats the member "${repeated.slice(0, 50)}"`), undefined);
      done(null, value);
    });
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    if (isEmptyDelete(request, body)) done(null, undefined);
    else done(new ApiError('unsupported_media_type', 'Send the body as application/json'), undefined);
  });
}
