import type { FastifyInstance } from 'fastify';
import { validationError } from './errors.js';
import type { FieldError } from './errors.js';

/**
 * The parameters of a query string that are not validly percent-encoded UTF-8 (RFC 3986
 * §2.1, WHATWG URL's `application/x-www-form-urlencoded` parser): each named by its name
 * when that decodes, else as `query`. Empty for a good query string.
 */
export function badlyEncodedParameters(query: string): FieldError[] {
  if (!query.includes('%')) return [];
  const errors: FieldError[] = [];
  for (const pair of query.split('&')) {
    if (decodes(pair)) continue;
    const name = pair.split('=', 1)[0] ?? '';
    errors.push({ field: decodes(name) ? decode(name) : 'query', message: 'invalid percent-encoding' });
  }
  return errors;
}

function decode(text: string): string {
  return decodeURIComponent(text.replaceAll('+', ' '));
}

function decodes(text: string): boolean {
  try {
    decode(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a request whose query string is not validly percent-encoded, before anything
 * reads it. Fastify's parser keeps such a value as its raw text, so a filter would
 * silently match the literal `%E0%A4%A`; the path gets the same 400 from the router.
 */
export function installQueryEncodingCheck(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const at = request.url.indexOf('?');
    const errors = at < 0 ? [] : badlyEncodedParameters(request.url.slice(at + 1));
    done(errors.length > 0 ? validationError(errors) : undefined);
  });
}
