import type { AccessTokenVerifier } from '../security/access-token.js';
import { issueAccessToken } from '../security/access-token.js';
import type { SigningKeyStore } from '../security/signing-keys.js';
import type { TenantDirectory } from '../security/tenant-directory.js';
import type { UserState } from '../security/user-directory.js';
import { roleCapabilities } from '../actions/roles.js';
import { ApiError } from '../http/errors.js';
import { epochSeconds } from '../core/clock.js';
import type { Clock } from '../core/clock.js';

/** The token answer of a completed sign-in (same shape as the token endpoint's). */
export interface UserTokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope: string;
}

/** RFC 9068 `client_id` of user tokens: they are issued by sign-in, not to an API client. */
export const signInClientId = 'sign-in';

/**
 * Access tokens for end users, from the same signing keys (and checked by the same
 * verifier) as client tokens: `sub` is the user, `actor_type` `user`, `scope` the user's
 * role's capabilities and `amr` how the user signed in (RFC 8176).
 */
export class UserTokens {
  constructor(
    private readonly options: {
      readonly keys: SigningKeyStore;
      readonly verifier: AccessTokenVerifier;
      readonly tenants: TenantDirectory;
      readonly issuer: string;
      readonly lifetimeSeconds: number;
      /** Milliseconds, like every clock in the service; JWT times are its seconds. */
      readonly clock: Clock;
    },
  ) {}

  async issue(user: UserState, amr: readonly string[]): Promise<UserTokenResponse> {
    const tenant = await this.options.tenants.resolve(user.tenantId);
    if (!tenant) throw new ApiError('invalid_grant', 'The tenant of this user no longer exists', { extensions: { error: 'invalid_grant' } });
    const now = epochSeconds(this.options.clock);
    const scope = roleCapabilities[user.role].join(' ');
    const { token, claims } = await issueAccessToken(
      this.options.keys,
      { issuer: this.options.issuer, audience: this.options.issuer, subject: user.userId, clientId: signInClientId, scope, tenantId: user.tenantId, level: tenant.level, user: { amr } },
      now,
      this.options.lifetimeSeconds,
    );
    this.options.verifier.remember(token, claims, now);
    return { access_token: token, token_type: 'Bearer', expires_in: this.options.lifetimeSeconds, scope };
  }
}
