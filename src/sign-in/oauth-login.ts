import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { Database } from '../db/dialect.js';
import { runUnitOfWork } from '../data/unit-of-work.js';
import { ApiError, validationError } from '../http/errors.js';
import { apiPrefix } from '../core/api-paths.js';
import type { DataKey } from '../security/data-key.js';
import type { TenantDirectory } from '../security/tenant-directory.js';
import type { UserDirectory } from '../security/user-directory.js';
import type { Clock } from '../core/clock.js';
import type { RequestContext } from '../core/request-context.js';
import type { SecurityEvents } from '../security/security-events.js';
import { auditInUnit, userEvent } from '../security/security-events.js';
import { invalidGrant } from './otp-service.js';
import { verifiedEmail } from './oauth-code-grant.js';
import { unknownProvider } from './oauth-providers.js';
import type { OAuthProviders } from './oauth-providers.js';
import type { UserTokenResponse, UserTokens } from './user-tokens.js';

/** A pending authorization lives 600 s; a login code 60 s. */
export const oauthPolicy = { stateLifetimeMs: 600_000, codeLifetimeMs: 60_000 } as const;

/** What the login asks the provider for: an ID token and the user's e-mail address. */
const scope = 'openid email';

export interface OAuthLoginDeps {
  readonly database: Database;
  readonly clock: Clock;
  readonly dataKey: DataKey;
  readonly providers: OAuthProviders;
  readonly tenants: TenantDirectory;
  readonly users: UserDirectory;
  readonly tokens: UserTokens;
  readonly events: SecurityEvents;
  /** `OAUTH_REDIRECT_URIS`, compared as exact strings. */
  readonly redirectUris: readonly string[];
  /** `PUBLIC_URL`: the provider returns to `{PUBLIC_URL}/v1/auth/oauth/{provider}/callback`. */
  readonly publicUrl: string;
}

type Stage = 'start' | 'callback' | 'token';

/** The one answer to every refused provider callback (docs/oauth-login.md). */
const callbackRefused = 'The sign-in with the provider did not succeed; start a new sign-in';
const badState = () => invalidGrant('The sign-in state is unknown, already used, expired or altered; start the sign-in again');

/**
 * OAuth2 login with external OpenID providers, openid-client as the relying party.
 * `start` keeps state, nonce and the PKCE verifier server-side and sends the browser to
 * the provider; `callback` consumes the state once (an atomic update), redeems the code
 * with the verifier, validates the ID token (nonce included), finds the tenant's user by
 * the verified e-mail address and returns to the whitelisted `redirect_uri` with a
 * one-time login code; `exchange` trades that code, once, for a user token (`amr: fed`).
 * Every success and refusal is a security event.
 */
export class OAuthLogin {
  constructor(private readonly deps: OAuthLoginDeps) {}

  /** The provider's authorization URL (302 target); every check happens before it is built. */
  async start(providerId: string, query: OAuthStartQuery, context: RequestContext): Promise<string> {
    return this.recorded('start', providerId, context, async () => {
      if (!this.deps.providers.has(providerId)) throw unknownProvider(providerId);
      const { tenantId, redirectUri, appState } = parseStart(query, this.deps.redirectUris);
      if (tenantId === 'system' || !(await this.deps.tenants.resolve(tenantId))) throw validationError([{ field: 'tenant_id', message: 'is not a known tenant' }]);
      const provider = await this.deps.providers.get(providerId);
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const verifier = oidc.randomPKCECodeVerifier();
      const challenge = await oidc.calculatePKCECodeChallenge(verifier);
      await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
        // Housekeeping: pending logins and codes past their life are of no use to anyone.
        await unit.trx.deleteFrom('oauth_states').where('expires_at', '<', unit.now).execute();
        await unit.trx.deleteFrom('oauth_login_codes').where('expires_at', '<', unit.now).execute();
        await unit.trx
          .insertInto('oauth_states')
          .values({
            state_hash: this.deps.dataKey.mac('oauth-state', state),
            provider: providerId,
            tenant_id: tenantId,
            redirect_uri: redirectUri,
            app_state: appState,
            code_verifier: this.deps.dataKey.encrypt(verifier),
            nonce,
            created_at: unit.now,
            expires_at: unit.now + oauthPolicy.stateLifetimeMs,
            used_at: null,
          })
          .execute();
      });
      return oidc.buildAuthorizationUrl(provider.config, {
        redirect_uri: this.callbackUrl(providerId),
        response_type: 'code',
        scope,
        state,
        nonce,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }).href;
    });
  }

  /**
   * The provider's answer: returns the application's URI with `code` (and its `state`),
   * or refuses (400) without redirecting anywhere.
   */
  async callback(providerId: string, query: unknown, url: string, context: RequestContext): Promise<string> {
    let tenantId: string | null = null;
    return this.recorded(
      'callback',
      providerId,
      context,
      async () => {
        if (!this.deps.providers.has(providerId)) throw unknownProvider(providerId);
        const state = single(query, 'state');
        if (state === undefined || state.length > 512) throw badState();
        const pending = await this.consumeState(state, context);
        if (!pending || pending.provider !== providerId) throw badState();
        tenantId = pending.tenant_id;
        const provider = await this.deps.providers.get(providerId);
        // openid-client takes the redirect_uri of the token request from this URL: ours, never the Host header's.
        const current = new URL(this.callbackUrl(providerId));
        current.search = url.includes('?') ? url.slice(url.indexOf('?')) : '';
        const email = await verifiedEmail(provider.config, current, {
          pkceCodeVerifier: this.deps.dataKey.decrypt(pending.code_verifier),
          expectedState: state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        const user = await this.deps.users.findByDestination(pending.tenant_id, 'email', email);
        if (!user?.active) throw invalidGrant('No active user of this tenant has the e-mail address the provider confirmed');
        const code = randomBytes(32).toString('base64url');
        await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
          await unit.trx
            .insertInto('oauth_login_codes')
            .values({
              code_hash: this.deps.dataKey.mac('oauth-login-code', code),
              provider: providerId,
              tenant_id: pending.tenant_id,
              user_id: user.userId,
              created_at: unit.now,
              expires_at: unit.now + oauthPolicy.codeLifetimeMs,
              used_at: null,
            })
            .execute();
        });
        const parameters = `code=${code}${pending.app_state === null ? '' : `&state=${encodeURIComponent(pending.app_state)}`}`;
        return `${pending.redirect_uri}${pending.redirect_uri.includes('?') ? '&' : '?'}${parameters}`;
      },
      () => tenantId,
    );
  }

  /** The one-time login code of the callback, traded once for a user token with `amr: ["fed"]`. */
  async exchange(body: OAuthTokenInput, context: RequestContext): Promise<UserTokenResponse> {
    let tenantId: string | null = null;
    let provider = 'unknown';
    return this.recorded(
      'token',
      () => provider,
      context,
      async () => {
        const { code } = body;
        const hash = this.deps.dataKey.mac('oauth-login-code', code);
        const spent = () => invalidGrant('The login code is wrong, expired or already used; sign in again');
        // Read first (the user lookup cannot run inside the transaction: SQLite has one
        // connection); the redemption below is the compare-and-set that decides.
        const pending = await this.deps.database.db
          .selectFrom('oauth_login_codes')
          .select(['user_id', 'tenant_id', 'provider', 'used_at', 'expires_at'])
          .where('code_hash', '=', hash)
          .executeTakeFirst();
        if (!pending || pending.used_at !== null || Number(pending.expires_at) <= this.deps.clock.now()) throw spent();
        tenantId = pending.tenant_id;
        provider = pending.provider;
        const user = await this.deps.users.get(pending.user_id);
        if (!user?.active || user.tenantId !== pending.tenant_id) throw invalidGrant('The user of this login code is no longer active');
        const token = await this.deps.tokens.issue(user, ['fed']);
        // The spent code and the `sign_in` event commit together, or neither does.
        await runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
          const used = await unit.trx
            .updateTable('oauth_login_codes')
            .set({ used_at: unit.now })
            .where('code_hash', '=', hash)
            .where('used_at', 'is', null)
            .where('expires_at', '>', unit.now)
            .executeTakeFirst();
          if (Number(used.numUpdatedRows) !== 1) throw spent();
          await auditInUnit(unit, userEvent('sign_in', context, { userId: user.userId, tenantId: user.tenantId }, { method: 'oauth', provider, amr: ['fed'] }));
        });
        return token;
      },
      () => tenantId,
    );
  }

  private callbackUrl(providerId: string): string {
    return `${this.deps.publicUrl}${apiPrefix}/auth/oauth/${providerId}/callback`;
  }

  /** Marks a pending login used, atomically: of two callbacks with one state, one wins. */
  private consumeState(state: string, context: RequestContext) {
    const hash = this.deps.dataKey.mac('oauth-state', state);
    return runUnitOfWork(this.deps.database, this.deps.clock, context, async (unit) => {
      const used = await unit.trx
        .updateTable('oauth_states')
        .set({ used_at: unit.now })
        .where('state_hash', '=', hash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', unit.now)
        .executeTakeFirst();
      if (Number(used.numUpdatedRows) !== 1) return undefined;
      return unit.trx.selectFrom('oauth_states').selectAll().where('state_hash', '=', hash).executeTakeFirstOrThrow();
    });
  }

  /** Runs a step; a refusal is recorded as a security event (with its private reason) before it is answered. */
  private async recorded<T>(stage: Stage, provider: string | (() => string), context: RequestContext, step: () => Promise<T>, tenant: () => string | null = () => null): Promise<T> {
    try {
      return await step();
    } catch (error) {
      const reason = error instanceof ApiError ? (error.privateReason ?? error.message) : (error as Error).message;
      await this.deps.events.record(
        userEvent(
          'sign_in_failed',
          context,
          { userId: null, tenantId: tenant() },
          {
            method: 'oauth',
            stage,
            provider: (typeof provider === 'string' ? provider : provider()).slice(0, 40),
            reason: reason.slice(0, 300),
          },
        ),
      );
      // The callback's refusals look alike: which check failed (an unverified or unknown
      // e-mail address, the provider's refusal) stays in the security event above.
      if (stage === 'callback' && error instanceof ApiError && error.code === 'invalid_grant') throw invalidGrant(callbackRefused, reason);
      throw error;
    }
  }
}

/** One query parameter given once (a repeated one counts as absent). */
function single(query: unknown, name: string): string | undefined {
  const value = query !== null && typeof query === 'object' ? (query as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** The query of `GET /v1/auth/oauth/{provider}/start`, as its schema (`src/actions/oauth-actions.ts`) admits it. */
export interface OAuthStartQuery {
  readonly tenant_id: string;
  readonly redirect_uri: string;
  readonly state?: string;
}

/** The body of `POST /v1/auth/oauth/token`, as its schema admits it. */
export interface OAuthTokenInput {
  readonly code: string;
}

/** What the start query's schema cannot say: the redirect URI is one of the configured ones. */
function parseStart(query: OAuthStartQuery, whitelist: readonly string[]): { tenantId: string; redirectUri: string; appState: string | null } {
  // Exact string comparison, nothing else: no prefix, no wildcard, no normalisation.
  if (!whitelist.includes(query.redirect_uri)) throw validationError([{ field: 'redirect_uri', message: 'must be exactly one of the redirect URIs registered in OAUTH_REDIRECT_URIS' }]);
  return { tenantId: query.tenant_id, redirectUri: query.redirect_uri, appState: query.state ?? null };
}
