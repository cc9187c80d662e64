/** The versioned API prefix every resource and auth path lives under (docs/versioning.md "Versions"). */
export const apiPrefix = '/v1';

/** The token endpoint's path; its URL (`{PUBLIC_URL}/v1/auth/token`) is the required `aud` of assertions. */
export const tokenPath = `${apiPrefix}/auth/token`;
