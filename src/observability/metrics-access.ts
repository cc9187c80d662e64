import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors.js';
import { IpAllowlist } from '../lib/ip-allowlist.js';

const challenge = 'Bearer realm="metrics"';

export interface MetricsAccessSettings {
  /** `METRICS_TOKEN`: a bearer secret for scrapers; unset means no token is accepted. */
  readonly metricsToken: string | undefined;
  /** `METRICS_ALLOW`: CIDRs that may scrape without a token; empty means none. */
  readonly metricsAllow: readonly string[];
}

/** How `/metrics` is protected, for the security posture. */
export type MetricsProtection = 'bearer token' | 'network allowlist' | 'bearer token or network allowlist' | 'closed';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Who may read `/metrics`. A scraper is not an OAuth client, so the route is public to the
 * access-token pipeline and guarded here instead:
 *
 * 1. A request with an `Authorization` header is judged by it alone: it must be
 *    `Bearer <METRICS_TOKEN>` (compared in constant time), else 401.
 * 2. Without one, the source address (after the `TRUST_PROXY` rule) must be in
 *    `METRICS_ALLOW`; otherwise 401 when a token would help, 403 when none is configured.
 */
export class MetricsAccess {
  readonly #token: Buffer | undefined;
  readonly #networks: IpAllowlist | undefined;

  constructor(settings: MetricsAccessSettings) {
    this.#token = settings.metricsToken === undefined ? undefined : digest(settings.metricsToken);
    // IpAllowlist treats an empty list as "everyone"; here an empty list means "no one".
    this.#networks = settings.metricsAllow.length > 0 ? new IpAllowlist(settings.metricsAllow) : undefined;
  }

  /** The protection in force. */
  get protection(): MetricsProtection {
    if (this.#token && this.#networks) return 'bearer token or network allowlist';
    if (this.#token) return 'bearer token';
    return this.#networks ? 'network allowlist' : 'closed';
  }

  /** Number of networks that may scrape without a token. */
  get allowedNetworks(): number {
    return this.#networks?.cidrs.length ?? 0;
  }

  /** Throws the 401/403 problem when `request` may not read the metrics. */
  check(request: FastifyRequest): void {
    const header = request.headers.authorization;
    if (header !== undefined) {
      if (!this.#tokenMatches(header)) {
        throw new ApiError('invalid_token', 'The metrics token is not valid', {
          headers: { 'www-authenticate': `${challenge}, error="invalid_token"` },
          privateReason: `metrics token mismatch from ${request.ip}`,
        });
      }
      return;
    }
    if (this.#networks?.allows(request.ip)) return;
    if (this.#token) throw new ApiError('unauthenticated', 'Metrics need the metrics bearer token from this address', { headers: { 'www-authenticate': challenge } });
    throw new ApiError('ip_not_allowed', 'Metrics are not served to this address', { privateReason: `metrics scrape from ${request.ip}` });
  }

  #tokenMatches(header: string): boolean {
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!this.#token || !match?.[1]) return false;
    // Equal-length digests: the comparison time says nothing about the secret.
    return timingSafeEqual(digest(match[1]), this.#token);
  }
}
