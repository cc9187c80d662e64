import * as oidc from 'openid-client';
import { ApiError } from '../http/errors.js';
import { isTransportFailure } from './oauth-providers.js';
import { invalidGrant } from './otp-service.js';
import { emailIsVerified } from './oauth-verified-email.js';

/**
 * Redeems the provider's code (PKCE verifier, state, nonce and ID token checked by
 * openid-client) and returns the e-mail address the provider vouches for: from the ID
 * token, or from userinfo when the ID token leaves it out (providers that keep scope
 * claims out of ID tokens when an access token is issued). `email_verified` must be true.
 */
export async function verifiedEmail(config: oidc.Configuration, current: URL, checks: oidc.AuthorizationCodeGrantChecks): Promise<string> {
  let claims: Record<string, unknown>;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, checks);
    const idToken = tokens.claims();
    if (!idToken) throw invalidGrant('The provider returned no ID token');
    claims = idToken;
    if ((idToken.email === undefined || (idToken.email_verified === undefined && idToken.xms_edov === undefined)) && config.serverMetadata().userinfo_endpoint) {
      claims = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (isTransportFailure(error)) throw new ApiError('service_unavailable', 'The OAuth provider cannot be reached; try again later', { cause: error, privateReason: reasonOf(error) });
    throw invalidGrant(refusalDetail(error), reasonOf(error));
  }
  const { email } = claims;
  if (typeof email !== 'string' || !email.includes('@')) throw invalidGrant('The provider did not share an e-mail address (request the scope "email")');
  if (!emailIsVerified(config.serverMetadata().issuer, claims)) throw invalidGrant('The provider does not confirm that the e-mail address is verified');
  return email.trim().toLowerCase();
}

/** What the client is told about a refused provider answer. */
function refusalDetail(error: unknown): string {
  // The provider's error code, if it looks like one (it is the provider's text, not ours).
  const code = (value: string) => (/^[A-Za-z0-9_.-]{1,64}$/.test(value) ? value : 'error');
  if (error instanceof oidc.AuthorizationResponseError) return `The provider refused the sign-in (${code(error.error)})`;
  if (error instanceof oidc.ResponseBodyError) return `The provider refused the code (${code(error.error)})`;
  const claim = (error as { cause?: { cause?: { claim?: unknown } } }).cause?.cause?.claim;
  if (claim === 'nonce') return "The ID token's nonce is not the one of this sign-in";
  return "The provider's answer did not pass the checks (state, code, PKCE or ID token)";
}

/** The private reason of a refusal: openid-client's message and the check underneath it. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return [error, cause]
    .filter((e): e is Error => e instanceof Error)
    .map((e) => e.message)
    .join(': ');
}
