import type { Clock, Sleep } from './clock.js';
import { ConnectionError } from './errors.js';

/** How the client waits and retries. */
export interface RetryOptions {
  /** Attempts per request, counting waits for 429/503/409 `idempotency_key_in_use` and network retries (default 3). */
  readonly maxAttempts?: number;
  /**
   * Longest `Retry-After` waited out, in seconds (default 60). A longer one throws the
   * answer's error (`RateLimitError`, `ConflictError`, …) at once, so a caller is never
   * parked for a whole window unawares.
   */
  readonly maxRetryAfterSeconds?: number;
  /** Pause before the first network retry in ms, doubled for each further one (default 200). */
  readonly networkBackoffMs?: number;
}

// RFC 9110 §9.2.2: a repeat of these has the effect of one. PATCH and POST are not.
const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Whether a request may be sent again after a failure that leaves its effect unknown. */
export function isIdempotent(method: string): boolean {
  return idempotentMethods.has(method.toUpperCase());
}

/**
 * Whether a 409 is `idempotency_key_in_use`: the first request with the key still runs, so a
 * repeat later gets its answer. Read from a copy, so the answer stays readable if returned.
 */
async function keyInUse(response: Response): Promise<boolean> {
  try {
    const problem: unknown = JSON.parse(await response.clone().text());
    return (problem as { code?: unknown } | null)?.code === 'idempotency_key_in_use';
  } catch {
    return false;
  }
}

/** A request that got no answer; only these are retried as network failures. */
class NetworkFailure extends Error {}

/** `fetch`, with a failure to get any answer marked for {@link RetryPolicy.send}. */
export async function fetchOrFail(fetchImpl: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetchImpl(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new NetworkFailure(cause?.code ?? cause?.message ?? (error as Error).message, { cause: error });
  }
}

/** The retry rules of one client, with its clock and timer. */
export class RetryPolicy {
  readonly maxAttempts: number;
  readonly maxRetryAfterSeconds: number;
  readonly networkBackoffMs: number;
  readonly #clock: Clock;
  readonly #sleep: Sleep;

  constructor(options: RetryOptions, clock: Clock, sleep: Sleep) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.maxRetryAfterSeconds = Math.max(0, options.maxRetryAfterSeconds ?? 60);
    this.networkBackoffMs = Math.max(0, options.networkBackoffMs ?? 200);
    this.#clock = clock;
    this.#sleep = sleep;
  }

  /** `Retry-After` in seconds (delay-seconds or an HTTP date), when present and readable. */
  retryAfterSeconds(headers: Headers): number | undefined {
    const value = headers.get('retry-after')?.trim();
    if (!value) return undefined;
    if (/^\d+$/.test(value)) return Number(value);
    const at = Date.parse(value);
    return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - this.#clock.now()) / 1000));
  }

  /**
   * Sends a request (built by `send` with {@link fetchOrFail}) until it has an answer worth returning: waits out 429 (and 503 for
   * idempotent requests, and 409 `idempotency_key_in_use` for `keyed` ones) within `Retry-After`
   * bounds, and retries network failures of idempotent requests only, since a POST or PATCH
   * that failed in flight may have been applied. `send` builds every attempt afresh (token,
   * proof, assertion); `challenge` may ask for one immediate repeat outside the budget (a DPoP
   * nonce, a stale token). `keyed`: the request carries an `Idempotency-Key`.
   */
  async send(send: () => Promise<Response>, options: { idempotent: boolean; keyed?: boolean; what: string; challenge?: (response: Response) => boolean }): Promise<Response> {
    let attempt = 1;
    for (;;) {
      let response: Response;
      try {
        response = await send();
      } catch (error) {
        if (!(error instanceof NetworkFailure)) throw error;
        if (!options.idempotent || attempt >= this.maxAttempts) {
          const why = options.idempotent ? `after ${attempt} attempts` : 'not retried: the request is not idempotent';
          throw new ConnectionError(`${options.what} failed (${why}): ${error.message}`, attempt, error.cause);
        }
        await this.#sleep(this.networkBackoffMs * 2 ** (attempt - 1));
        attempt += 1;
        continue;
      }
      if (options.challenge?.(response)) {
        await response.body?.cancel();
        continue;
      }
      const keyWait = response.status === 409 && options.keyed === true && attempt < this.maxAttempts && (await keyInUse(response));
      const waitable = response.status === 429 || (response.status === 503 && options.idempotent) || keyWait;
      if (waitable && attempt < this.maxAttempts) {
        const seconds = this.retryAfterSeconds(response.headers) ?? 1;
        if (seconds <= this.maxRetryAfterSeconds) {
          await response.body?.cancel();
          await this.#sleep(seconds * 1000);
          attempt += 1;
          continue;
        }
      }
      return response;
    }
  }
}
