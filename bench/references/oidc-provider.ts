/**
 * Reference server: node-oidc-provider issuing ES512 JWT access tokens for the client
 * credentials grant with private_key_jwt (ES256 client key), the same work our token
 * endpoint does. Runs in its own process; env: PORT, CLIENT_ID, CLIENT_JWK (public JWK JSON).
 */
import { exportJWK, generateKeyPair } from 'jose';
import { Provider } from 'oidc-provider';

const port = Number(process.env.PORT);
const clientId = process.env.CLIENT_ID ?? 'bench-client';
const clientJwk = JSON.parse(process.env.CLIENT_JWK ?? 'null') as Record<string, string> | null;
if (!Number.isInteger(port) || !clientJwk) throw new Error('PORT and CLIENT_JWK are required');

const { privateKey } = await generateKeyPair('ES512', { extractable: true });
const signingJwk = { ...(await exportJWK(privateKey)), kid: 'bench-es512', alg: 'ES512', use: 'sig' };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  jwks: { keys: [signingJwk] },
  // Same lifetime as our ACCESS_TOKEN_TTL_SECONDS default.
  ttl: { ClientCredentials: 900 },
  clients: [
    {
      client_id: clientId,
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: { keys: [{ ...clientJwk, alg: 'ES256', use: 'sig' }] },
      grant_types: ['client_credentials'],
      response_types: [],
      // The signing JWKS holds only a P-521 key, so the RS256 default would be refused.
      id_token_signed_response_alg: 'ES512',
      redirect_uris: [],
    },
  ],
  // ES512 is not among the default ID token algorithms; the client metadata needs it.
  enabledJWA: { idTokenSigningAlgValues: ['ES512'] },
  features: {
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:bench',
      getResourceServerInfo: () => ({ scope: 'read', accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES512' } } }),
    },
  },
});
// Refusals are part of a load test's output, not something to print per request.
provider.on('server_error', (_ctx: unknown, error: unknown) => console.error('oidc-provider server_error', error));
provider.listen(port, () => process.stdout.write('ready\n'));
