import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressGuard } from '../lib/address-guard.js';

/** What one attempt brought back. */
export interface AttemptResult {
  readonly status: number | null;
  /** The start of the response body (capped), or what went wrong. */
  readonly detail: string;
}

const keptBody = 1024;

/**
 * One POST to a webhook receiver: the connection goes only to an address the guard
 * permits (checked on the resolved address itself), redirects are not followed (a 3xx is
 * an answer like any other), the whole attempt is bounded by `timeoutMs`, and only the
 * first kilobyte of the answer is kept.
 */
export function postWebhook(url: string, headers: Readonly<Record<string, string>>, body: string, options: { readonly guard: AddressGuard; readonly timeoutMs: number }): Promise<AttemptResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ status: null, detail: 'invalid URL' });
  }
  const refused = options.guard.literalRefusal(target);
  if (refused) return Promise.resolve({ status: null, detail: refused });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'booking-service-webhooks', 'content-length': Buffer.byteLength(body), ...headers },
        lookup: options.guard.guardedLookup(),
        agent: false,
      },
      (response) => {
        let kept = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (kept.length < keptBody) kept += chunk.slice(0, keptBody - kept.length);
          // Beyond what we keep, the rest is not worth reading: close early.
          else response.destroy();
        });
        const done = () => finish({ status: response.statusCode ?? null, detail: kept });
        response.on('end', done);
        response.on('close', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ status: null, detail: (error.code ? `${error.code}: ` : '') + error.message.slice(0, 300) }));
    req.end(body);
  });
}
