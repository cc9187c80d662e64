import * as oidc from 'openid-client';
import type { OAuthProviderConfig } from '../config/oauth-parsers.js';
import { ApiError } from '../http/errors.js';

/** How long a provider may take to answer discovery, the token request or userinfo. */
const timeoutSeconds = 10;

/** A configured provider with its discovered metadata (openid-client `Configuration`). */
export interface OAuthProvider {
  readonly id: string;
  readonly config: oidc.Configuration;
}

/**
 * The configured external OpenID providers. Discovery runs on first use and its result is
 * kept; a failed discovery is not kept, so the next sign-in tries again. Every ID token's
 * signature is verified against the provider's `jwks_uri` (openid-client's non-repudiation
 * checks; without them it trusts a token-endpoint ID token on TLS alone). Plain-http issuers
 * exist only with `OAUTH_ALLOW_HTTP_ISSUERS=true` (checked at boot, `config/oauth-parsers.ts`):
 * for those, and only those, openid-client's https-only rule is lifted.
 */
export class OAuthProviders {
  private readonly byId: ReadonlyMap<string, OAuthProviderConfig>;
  private readonly discovered = new Map<string, Promise<oidc.Configuration>>();

  constructor(providers: readonly OAuthProviderConfig[]) {
    this.byId = new Map(providers.map((provider) => [provider.id, provider]));
  }

  /** Whether a provider of this id is configured (no network). */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The provider with its metadata; 404 for an unknown id, 503 when its discovery fails. */
  async get(id: string): Promise<OAuthProvider> {
    const settings = this.byId.get(id);
    if (!settings) throw unknownProvider(id);
    let pending = this.discovered.get(id);
    if (!pending) {
      pending = discover(settings);
      this.discovered.set(id, pending);
      pending.catch(() => this.discovered.delete(id));
    }
    try {
      return { id, config: await pending };
    } catch (error) {
      throw new ApiError('service_unavailable', `The OAuth provider "${id}" cannot be reached; try again later`, {
        cause: error,
        privateReason: `discovery of ${settings.issuer} failed: ${(error as Error).message}`,
      });
    }
  }
}

/** The 404 for a provider id that is not in `OAUTH_PROVIDERS`. */
export function unknownProvider(id: string): ApiError {
  return new ApiError('not_found', `No OAuth provider "${id.slice(0, 40)}" is configured (OAUTH_PROVIDERS)`);
}

function discover(settings: OAuthProviderConfig): Promise<oidc.Configuration> {
  const insecure = new URL(settings.issuer).protocol === 'http:';
  return oidc.discovery(new URL(settings.issuer), settings.clientId, { client_secret: settings.clientSecret }, oidc.ClientSecretBasic(settings.clientSecret), {
    timeout: timeoutSeconds,
    // http issuers only with OAUTH_ALLOW_HTTP_ISSUERS (see above); signatures always.
    execute: insecure ? [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks] : [oidc.enableNonRepudiationChecks],
  });
}

/**
 * Whether an openid-client failure is the provider being unreachable (network, timeout)
 * rather than a refused or invalid answer.
 */
export function isTransportFailure(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  return error instanceof oidc.ClientError && (error.code === 'OAUTH_TIMEOUT' || error.code === 'OAUTH_ABORT');
}
