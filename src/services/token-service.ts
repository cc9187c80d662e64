import type { Database } from '../db/dialect.js';
import { isCapability } from '../actions/capabilities.js';
import type { AccessTokenVerifier } from '../security/access-token.js';
import { issueAccessToken } from '../security/access-token.js';
import type { ClientDirectory, ClientState } from '../security/client-directory.js';
import { verifyClientAssertion } from '../security/client-assertion.js';
import type { DpopVerifier } from '../security/dpop.js';
import { OAuthError } from '../security/oauth-error.js';
import type { ReplayStore } from '../security/replay-store.js';
import type { SigningKeyStore } from '../security/signing-keys.js';
import { findClientKey } from './client-keys.js';
import type { SecurityEvents } from '../security/security-events.js';
import { epochSeconds } from '../core/clock.js';
import type { Clock } from '../core/clock.js';

export const jwtBearerAssertionType = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A parsed token request (form fields, once each). */
export interface TokenRequest {
  readonly fields: ReadonlyMap<string, string>;
  readonly dpopProof: string | undefined;
  readonly sourceIp: string;
  readonly requestId?: string;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer' | 'DPoP';
  readonly expires_in: number;
  readonly scope: string;
}

export interface TokenServiceOptions {
  readonly database: Database;
  readonly clients: ClientDirectory;
  readonly keys: SigningKeyStore;
  readonly verifier: AccessTokenVerifier;
  readonly replay: ReplayStore;
  readonly issuer: string;
  readonly tokenEndpoint: string;
  readonly lifetimeSeconds: number;
  readonly clockSkewSeconds: number;
  /** Judges the request's DPoP proof (the API's verifier too). */
  readonly dpop: DpopVerifier;
  /** Audit trail of issued and refused tokens. */
  readonly events?: SecurityEvents;
  /** Milliseconds, like every clock in the service; JWT times are its seconds. */
  readonly clock: Clock;
}

/**
 * The client credentials grant with private_key_jwt (RFC 6749 §4.4, RFC 7523) and optional
 * DPoP binding (RFC 9449). Steps run in a fixed order and one-time values (assertion and
 * proof `jti`) are recorded only after every check passed.
 */
export class TokenService {
  constructor(private readonly options: TokenServiceOptions) {}

  /** Issues a token or throws an {@link OAuthError}; either way the outcome is audited. */
  async issue(request: TokenRequest): Promise<TokenResponse> {
    const seen: { client?: ClientState } = {};
    const claimed = request.fields.get('client_id');
    const base = { clientIp: request.sourceIp, requestId: request.requestId ?? null };
    try {
      const response = await this.grant(request, seen);
      await this.options.events?.record({
        ...base,
        name: 'token_issued',
        clientId: seen.client?.clientId ?? null,
        tenantId: seen.client?.tenantId ?? null,
        details: { scope: response.scope, token_type: response.token_type },
      });
      return response;
    } catch (error) {
      if (error instanceof OAuthError) {
        const replay = error.privateReason.endsWith('replayed');
        await this.options.events?.record({
          ...base,
          name: replay ? 'replay_detected' : 'token_refused',
          clientId: seen.client?.clientId ?? null,
          tenantId: seen.client?.tenantId ?? null,
          details: { error: error.error, reason: error.privateReason, ...(seen.client ? {} : { claimed_client_id: claimed?.slice(0, 100) ?? null }) },
        });
      }
      throw error;
    }
  }

  private async grant(request: TokenRequest, seen: { client?: ClientState }): Promise<TokenResponse> {
    const { fields } = request;
    const now = epochSeconds(this.options.clock);
    const grantType = required(fields, 'grant_type');
    if (grantType !== 'client_credentials') throw new OAuthError('unsupported_grant_type', `grant_type ${grantType.slice(0, 60)}`);
    const clientId = required(fields, 'client_id');
    const assertionType = required(fields, 'client_assertion_type');
    const assertion = required(fields, 'client_assertion');
    if (assertionType !== jwtBearerAssertionType) throw new OAuthError('invalid_client', 'unsupported client_assertion_type');

    const client = await this.options.clients.get(clientId);
    if (!client) throw new OAuthError('invalid_client', 'unknown client_id');
    seen.client = client;
    if (client.disabled) throw new OAuthError('invalid_client', 'client disabled');
    if (!client.allowlist.allows(request.sourceIp)) throw new OAuthError('invalid_client', `source ${request.sourceIp} outside the client's IP allowlist`);

    const verified = await verifyClientAssertion(assertion, {
      clientId,
      audience: this.options.tokenEndpoint,
      now,
      clockSkewSeconds: this.options.clockSkewSeconds,
      findKey: (kid) => findClientKey(this.options.database.db, clientId, kid),
    });
    const dpop = request.dpopProof === undefined ? undefined : await this.options.dpop.checkTokenRequestProof(request.dpopProof, now);
    const scope = grantScope(fields.get('scope'), client.capabilities);

    if (dpop) await this.options.dpop.claimTokenRequestProof(dpop, now);
    // Keyed on (iss, jti), never the token bytes: ECDSA signatures are malleable, so a
    // re-encoded signature must not make a used assertion look new.
    if (!(await this.options.replay.claim('client_assertion', `${clientId}:${verified.jti}`, verified.exp + this.options.clockSkewSeconds, now))) {
      throw new OAuthError('invalid_client', 'client assertion jti replayed');
    }

    const { token, claims } = await issueAccessToken(
      this.options.keys,
      // The directory's strings, not the form's: claims stay cached until `exp`, and a
      // substring of the request body would keep the whole body (the assertion) alive.
      {
        issuer: this.options.issuer,
        audience: this.options.issuer,
        subject: client.clientId,
        clientId: client.clientId,
        scope,
        tenantId: client.tenantId,
        level: client.level,
        ...(dpop ? { jkt: dpop.jkt } : {}),
      },
      now,
      this.options.lifetimeSeconds,
    );
    this.options.verifier.remember(token, claims, now);
    return { access_token: token, token_type: dpop ? 'DPoP' : 'Bearer', expires_in: this.options.lifetimeSeconds, scope };
  }
}

function required(fields: ReadonlyMap<string, string>, name: string): string {
  const value = fields.get(name);
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `missing ${name}`);
  return value;
}

// One string per client's capability list (the directory's array), shared by every token
// that asks for no narrower scope: cached claims hold it until `exp`.
const fullScopes = new WeakMap<readonly string[], string>();

function fullScope(assigned: readonly string[]): string {
  let scope = fullScopes.get(assigned);
  if (scope === undefined) {
    scope = assigned.join(' ');
    fullScopes.set(assigned, scope);
  }
  return scope;
}

/**
 * Requested ∩ assigned. An omitted scope grants everything assigned; an unknown name or an
 * empty intersection is `invalid_scope`.
 */
export function grantScope(requested: string | undefined, assigned: readonly string[]): string {
  if (requested === undefined) {
    if (assigned.length === 0) throw new OAuthError('invalid_scope', 'client has no capabilities');
    return fullScope(assigned);
  }
  const names = requested.split(' ').filter(Boolean);
  const unknown = names.filter((n) => !isCapability(n));
  if (unknown.length > 0) throw new OAuthError('invalid_scope', `unknown scope ${unknown.join(' ').slice(0, 200)}`);
  const granted = [...new Set(names)].filter((n) => assigned.includes(n));
  if (granted.length === 0) throw new OAuthError('invalid_scope', 'no requested scope is assigned to the client');
  return granted.join(' ');
}
