import { problems } from '../derive/openapi/problems.js';
import { queryParameters } from '../derive/openapi/query-parameters.js';
import type { Operation } from '../derive/openapi/types.js';
import { queryParsedByHandler } from './action.js';
import type { ActionDef } from './action.js';
import { closedObject, jsonBody, token } from './sign-in-actions.js';

const provider = { name: 'provider', in: 'path', required: true, description: 'The `id` of a provider in `OAUTH_PROVIDERS`.', schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,31}$' } };
const query = (name: string, required: boolean, description: string) => ({ name, in: 'query', required, description, schema: { type: 'string' } });

/** The start's query: a repeated parameter (an array) is refused; the redirect URI is checked against `OAUTH_REDIRECT_URIS` by the service. */
const startQuery = closedObject(
  {
    tenant_id: { type: 'string', pattern: '^[A-Za-z0-9-]{1,64}$' },
    redirect_uri: { type: 'string' },
    state: { type: 'string', pattern: '^[\\x21-\\x7e]{1,512}$' },
  },
  ['tenant_id', 'redirect_uri'],
);
const startDescriptions: Readonly<Record<string, string>> = {
  tenant_id: 'The tenant node the user belongs to.',
  redirect_uri: 'Where the login code is delivered; exactly one of `OAUTH_REDIRECT_URIS`.',
  state: 'Opaque value of the application, returned with the login code.',
};
/** The code exchange's body. */
const tokenBody = closedObject({ code: { type: 'string', pattern: '^[A-Za-z0-9_-]{20,100}$' } }, ['code']);
const redirect = (description: string) => ({ description, headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string', format: 'uri' } } } });

/**
 * A step of the OAuth2 login (docs/oauth-login.md): public — the proof is the state, the
 * provider's answer or the login code. The browser steps share the public routes' per-IP
 * limit; the code exchange is limited like the token endpoint.
 */
function step(name: string, method: 'GET' | 'POST', path: string, rateLimitGroup: 'public' | 'token', schemas: ActionDef['schemas'], openapi: Omit<Operation, 'tags'>): ActionDef {
  return { resource: 'users', name, method, path, capability: `users:${name}`, rateLimitGroup, authentication: 'public', stepUp: false, openapi: { ...openapi, tags: ['auth'] }, schemas };
}

/** End-user sign-in with an external OpenID provider (docs/oauth-login.md "The three operations"). */
export const oauthActions: readonly ActionDef[] = [
  step(
    'oauth-start',
    'GET',
    '/v1/auth/oauth/:provider/start',
    'public',
    { query: startQuery },
    {
      operationId: 'oauth_start',
      summary: 'Start a sign-in with an external OpenID provider',
      description:
        'Redirects the browser to the provider (authorization code flow with `state`, `nonce` and PKCE `S256`, scope `openid email`). `redirect_uri` must equal one of `OAUTH_REDIRECT_URIS` exactly; otherwise, and for an unknown tenant, 400 and no redirect.',
      parameters: [provider, ...queryParameters(startQuery, startDescriptions)],
      responses: { 302: redirect("To the provider's authorization endpoint."), ...problems('400', '404') },
    },
  ),
  // No query schema: providers add parameters of their own (`session_state`, `scope`), and a bad state is `invalid_grant`.
  step(
    'oauth-callback',
    'GET',
    '/v1/auth/oauth/:provider/callback',
    'public',
    { query: queryParsedByHandler },
    {
      operationId: 'oauth_callback',
      summary: "The provider's answer (redirect URI registered at the provider)",
      description:
        "Consumes the `state` once (valid 600 s), redeems the code with the PKCE verifier, validates the ID token and its nonce, and finds the tenant's active user by the verified e-mail address (`email_verified`). Then redirects to the `redirect_uri` of the start with `code` (a one-time login code, 60 s) and the application's `state`. An unknown, used, expired or altered state, a wrong nonce, a provider error, an unverified or unknown e-mail address: 400 `invalid_grant`, no redirect.",
      parameters: [
        provider,
        query('state', true, 'The state of the start.'),
        query('code', false, "The provider's authorization code."),
        query('iss', false, 'RFC 9207 issuer of the answer.'),
        query('error', false, "The provider's refusal."),
      ],
      responses: { 302: redirect("To the application's `redirect_uri` with `code` (and `state`)."), ...problems('400', '404') },
    },
  ),
  step(
    'oauth-token',
    'POST',
    '/v1/auth/oauth/token',
    'token',
    { body: tokenBody },
    {
      operationId: 'oauth_token',
      summary: 'Exchange a login code for a user token',
      description: 'The `code` the callback appended to the `redirect_uri`: valid 60 s, once. A wrong, expired or used code is a 400 `invalid_grant`.',
      requestBody: { required: true, content: jsonBody(tokenBody) },
      responses: {
        200: {
          description: 'A user token with `amr: ["fed"]`.',
          content: { 'application/json': { schema: { type: 'object', properties: token, required: Object.keys(token) } } },
        },
        ...problems('400'),
      },
    },
  ),
];
