import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressGuard } from '../lib/address-guard.js';

/** The limits of one feed fetch (docs/calendars.md "Import"). */
export interface FetchLimits {
  readonly guard: AddressGuard;
  /** The whole fetch, redirects included. */
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxRedirects: number;
  /** Whether `http:` URLs may be fetched (`WEBHOOK_ALLOW_HTTP`); `https:` always may. */
  readonly allowHttp: boolean;
}

/** Why a fetch gave no feed: the import's `last_error`. */
export class FeedError extends Error {}

/**
 * GETs a feed: every connection (the first and each redirect, at most `maxRedirects`) goes
 * only to an address the guard permits, checked on the resolved address itself; the whole
 * fetch is bounded by `timeoutMs` and the body by `maxBytes` (read as a stream and cut off
 * beyond it, whatever `Content-Length` says). Anything but a 2xx is an error.
 *
 * @throws FeedError with a message fit for `last_error` (never the URL's secret parts)
 */
export async function fetchFeed(url: string, limits: FetchLimits): Promise<string> {
  const deadline = Date.now() + limits.timeoutMs;
  let target = parseUrl(url, limits);
  for (let redirects = 0; ; redirects += 1) {
    const response = await get(target, limits, deadline);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.destroy();
      if (redirects >= limits.maxRedirects) throw new FeedError(`more than ${limits.maxRedirects} redirects`);
      target = parseUrl(new URL(response.headers.location, target).toString(), limits);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new FeedError(`the feed answered HTTP ${status}`);
    }
    return readBody(response, limits.maxBytes, deadline);
  }
}

function parseUrl(url: string, limits: FetchLimits): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new FeedError('the URL is not valid');
  }
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && limits.allowHttp)) throw new FeedError(`${target.protocol} URLs are not fetched (https only unless WEBHOOK_ALLOW_HTTP)`);
  const refused = limits.guard.literalRefusal(target);
  if (refused) throw new FeedError(refused.replace('webhooks may not reach', 'imports may not reach'));
  return target;
}

function remaining(deadline: number): number {
  return Math.max(1, deadline - Date.now());
}

function get(target: URL, limits: FetchLimits, deadline: number): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      { method: 'GET', headers: { accept: 'text/calendar, */*;q=0.5', 'user-agent': 'booking-service-calendars' }, lookup: limits.guard.guardedLookup(), agent: false },
      (response) => {
        clearTimeout(timer);
        resolve(response);
      },
    );
    const timer = setTimeout(() => req.destroy(new FeedError(`no answer within ${limits.timeoutMs} ms`)), remaining(deadline));
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error instanceof FeedError ? error : new FeedError((error.code ? `${error.code}: ` : '') + error.message.slice(0, 300)));
    });
    req.end();
  });
}

function readBody(response: IncomingMessage, maxBytes: number, deadline: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (error: FeedError) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      response.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new FeedError('the feed did not finish in time')), remaining(deadline));
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return fail(new FeedError(`the feed is larger than ${Math.round(maxBytes / 1_048_576)} MB`));
      chunks.push(chunk);
    });
    response.on('end', () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    response.on('error', (error) => fail(new FeedError(`the feed broke off: ${error.message.slice(0, 200)}`)));
  });
}
