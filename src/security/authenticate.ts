import type { FastifyRequest } from 'fastify';
import type { AccessTokenClaims, AccessTokenVerifier } from './access-token.js';
import { authError } from './challenge.js';
import { schemeOf } from '../http/challenge.js';
import type { Scheme } from '../http/challenge.js';
import type { DpopVerifier } from './dpop.js';
import { ApiError, withHeaders } from '../http/errors.js';
import { reasonOf } from './oauth-error.js';
import { epochSeconds } from '../core/clock.js';
import type { Clock } from '../core/clock.js';

/**
 * The pre-authentication limit as the authenticator sees it (implemented by
 * `src/edge/unauthenticated-limit.ts`): consulted before any token or proof is checked,
 * told about every refused authentication.
 */
export interface AuthenticationGate {
  /** Throws (a 429 problem) when the caller's address may not try again yet. */
  admit(request: FastifyRequest): Promise<void>;
  /**
   * Counts one refused authentication of the caller's address; returns the rate-limit
   * headers the refusal carries (what is left of the address's allowance).
   */
  refused(request: FastifyRequest): Promise<Readonly<Record<string, string>>>;
}

export interface AuthenticatorOptions {
  readonly verifier: AccessTokenVerifier;
  /** Judges the proof sent with a DPoP-bound token (the token endpoint's verifier too). */
  readonly dpop: DpopVerifier;
  /** The pre-authentication limit; none when rate limits are off. */
  readonly gate?: AuthenticationGate;
  /** Milliseconds, like every clock in the service; JWT and proof times are its seconds. */
  readonly clock: Clock;
}

/** The verified token of a request and whether it is DPoP-bound. */
export interface Authenticated {
  readonly claims: AccessTokenClaims;
  readonly scheme: Scheme;
}

/**
 * Step 1 of the pipeline: the access token (Bearer or DPoP), and for a DPoP-bound token a
 * fresh, unreplayed proof from the same key for this method, URL and token.
 *
 * A request whose token this instance already verified goes straight on. Every other
 * request first passes the pre-authentication gate (429 once its address has too many
 * refusals), and every refusal is counted there, so signature checks per address are
 * bounded. DPoP proofs are new on every request and always pass the gate first.
 */
export class Authenticator {
  constructor(private readonly options: AuthenticatorOptions) {}

  /**
   * The request's verified token, without a promise for the common case: `Bearer <token>`
   * with a token this instance verified before (its syntax was checked then) that is not
   * DPoP-bound. Any other header, however close, takes the full path with its exact answers.
   */
  authenticate(request: FastifyRequest): Authenticated | Promise<Authenticated> {
    return this.#known(request) ?? this.#authenticateCounted(request);
  }

  #known(request: FastifyRequest): Authenticated | undefined {
    const header = request.headers.authorization;
    if (header === undefined || !header.startsWith('Bearer ')) return undefined;
    const claims = this.options.verifier.verified(header.slice(7), epochSeconds(this.options.clock));
    return claims && claims.cnf === undefined ? { claims, scheme: 'Bearer' } : undefined;
  }

  async #authenticateCounted(request: FastifyRequest): Promise<Authenticated> {
    try {
      return await this.#authenticate(request);
    } catch (error) {
      // Only a 401 is a refused authentication: not the gate's own 429, not a storage failure.
      if (this.options.gate && error instanceof ApiError && error.status === 401) throw withHeaders(error, await this.options.gate.refused(request));
      throw error;
    }
  }

  async #authenticate(request: FastifyRequest): Promise<Authenticated> {
    const { gate } = this.options;
    const header = request.headers.authorization;
    const match = header ? /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header) : null;
    if (!match?.[1] || !match[2]) {
      await gate?.admit(request);
      // Another scheme (Basic, …) presents no access token: like none at all, the challenge
      // carries no error code (RFC 6750 §3.1).
      if (!header || !/^\s*(Bearer|DPoP)(\s|$)/i.test(header)) throw authError('unauthenticated', 'Send an access token in the Authorization header: "Bearer <token>" or "DPoP <token>"', null);
      // A malformed header is answered in the scheme it names.
      throw authError('invalid_token', 'The Authorization header is not "Bearer <token>" or "DPoP <token>"', schemeOf(request), 'invalid_token');
    }
    const scheme: Scheme = match[1].toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
    const token = match[2];
    const now = epochSeconds(this.options.clock);
    let claims: AccessTokenClaims;
    try {
      claims = await this.options.verifier.verify(token, now, gate && (() => gate.admit(request)));
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw authError('invalid_token', 'The access token is invalid or expired', scheme, 'invalid_token', { privateReason: reasonOf(error) });
    }
    const jkt = claims.cnf?.jkt;
    if (jkt === undefined) {
      if (scheme === 'DPoP') throw authError('invalid_token', 'The token is not DPoP-bound; send it with the Bearer scheme', 'DPoP', 'invalid_token');
      return { claims, scheme };
    }
    if (scheme !== 'DPoP') throw authError('invalid_token', 'The token is DPoP-bound; send it with the DPoP scheme and a proof', 'DPoP', 'invalid_token');
    await this.options.gate?.admit(request);
    await this.options.dpop.verifyBoundRequest({ method: request.method, url: request.url, proof: request.headers.dpop, accessToken: token, jkt }, now);
    return { claims, scheme };
  }
}
