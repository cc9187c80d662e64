import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { Provider } from 'oidc-provider';

/** An account of the test provider: the e-mail claims it asserts. */
export interface TestAccount {
  readonly email: string;
  readonly emailVerified: boolean;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The account the next login signs in as, or `deny` to refuse it (`access_denied`). */
  login(account: string | 'deny'): void;
  /**
   * Plays the browser from the provider's authorization URL: follows redirects with a
   * cookie jar through login and consent until one leads to `returnTo` (our callback), and
   * returns that URL.
   */
  authorize(authorizationUrl: string, returnTo: string): Promise<string>;
  /**
   * Rewrites the `id_token` of the token endpoint's answers (a man in the middle, or a
   * provider that signs badly) until called with `null`.
   */
  tamperIdToken(rewrite: ((idToken: string) => Promise<string> | string) | null): void;
  /** Public JWKs the provider's `jwks_uri` publishes besides its own signing key (a key rotation). */
  publishKeys(keys: readonly Record<string, unknown>[]): void;
  close(): Promise<void>;
}

/** Replaces the body a Koa response ends with (one `end(body)` call, headers not yet sent). */
function rewriteBody(res: ServerResponse, rewrite: (body: string) => Promise<string>): void {
  const end = res.end.bind(res);
  const patched = (chunk?: unknown): ServerResponse => {
    const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : typeof chunk === 'string' ? chunk : '';
    void rewrite(text).then(
      (body) => {
        res.setHeader('content-length', Buffer.byteLength(body));
        end(body);
      },
      (error: unknown) => {
        res.statusCode = 500;
        res.setHeader('content-length', Buffer.byteLength(String(error)));
        end(String(error));
      },
    );
    return res;
  };
  res.end = patched as ServerResponse['end'];
}

/**
 * A real node-oidc-provider (v9) on a free loopback port over http: discovery, the
 * authorization code flow with PKCE, ID tokens signed with RS256 and userinfo. Logins and
 * consents are finished by its interaction API with the account chosen by {@link login}.
 */
export async function startOidcProvider(options: {
  redirectUris: readonly string[];
  accounts: Readonly<Record<string, TestAccount>>;
  /** Put the e-mail claims in the ID token too (by default, like many providers, only userinfo has them when an access token is issued). */
  emailInIdToken?: boolean;
}): Promise<TestOidcProvider> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-rs256', alg: 'RS256', use: 'sig' };
  const clientId = 'booking-service';
  const clientSecret = 'test-client-secret-of-sufficient-length';
  let next: string = 'deny';
  let idTokenRewrite: ((idToken: string) => Promise<string> | string) | null = null;
  let extraKeys: readonly Record<string, unknown>[] = [];
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-cookie-signing-key-0123456789'] },
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [...options.redirectUris],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: options.emailInIdToken !== true,
    features: { devInteractions: { enabled: false } },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    findAccount: (_ctx: unknown, id: string) => {
      const account = options.accounts[id];
      return account ? { accountId: id, claims: () => Promise.resolve({ sub: id, email: account.email, email_verified: account.emailVerified }) } : undefined;
    },
  });
  const handle = provider.callback();
  server.on('request', (req, res) => {
    const rewrite = idTokenRewrite;
    if (req.url === '/token' && rewrite) {
      rewriteBody(res, async (body) => {
        const answer = JSON.parse(body) as Record<string, unknown>;
        if (typeof answer.id_token === 'string') answer.id_token = await rewrite(answer.id_token);
        return JSON.stringify(answer);
      });
    }
    if (req.url === '/jwks' && extraKeys.length > 0) {
      const keys = extraKeys;
      rewriteBody(res, (body) => {
        const jwks = JSON.parse(body) as { keys: unknown[] };
        return Promise.resolve(JSON.stringify({ keys: [...jwks.keys, ...keys] }));
      });
    }
    if (!req.url?.startsWith('/interaction/')) return handle(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (next === 'deny') return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user declined' }, { mergeWithLastSubmission: false });
      if (details.prompt.name === 'login') return provider.interactionFinished(req, res, { login: { accountId: next } }, { mergeWithLastSubmission: false });
      const grant = new provider.Grant({ accountId: details.session?.accountId ?? next, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    login(account) {
      next = account;
    },
    async authorize(authorizationUrl, returnTo) {
      const jar = new Map<string, string>();
      let url = authorizationUrl;
      for (let hop = 0; hop < 10; hop++) {
        const response = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const header of response.headers.getSetCookie()) {
          const [pair = ''] = header.split(';');
          const at = pair.indexOf('=');
          const name = pair.slice(0, at);
          const value = pair.slice(at + 1);
          if (value === '' || /expires=Thu, 01 Jan 1970/i.test(header)) jar.delete(name);
          else jar.set(name, value);
        }
        const location = response.headers.get('location');
        await response.arrayBuffer();
        if (!location) throw new Error(`the provider answered ${response.status} without a redirect at ${url}`);
        url = new URL(location, url).href;
        if (url.startsWith(returnTo)) return url;
      }
      throw new Error('too many redirects at the provider');
    },
    tamperIdToken(rewrite) {
      idTokenRewrite = rewrite;
    },
    publishKeys(keys) {
      extraKeys = keys;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
