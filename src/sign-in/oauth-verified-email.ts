/**
 * Whether a provider vouches for the e-mail address of its claims (ID token or userinfo):
 * `email_verified` is true (OpenID Connect Core §5.1; a few providers send the string
 * "true"). Microsoft Entra ID sends no `email_verified`; there the optional claim
 * `xms_edov` (the address's domain is verified by the directory's owner) stands in for it,
 * as Microsoft recommends against the "nOAuth" account takeover — for that issuer only.
 */
export function emailIsVerified(issuer: string, claims: Readonly<Record<string, unknown>>): boolean {
  if (claims.email_verified === true || claims.email_verified === 'true') return true;
  return isEntraIssuer(issuer) && claims.email_verified === undefined && (claims.xms_edov === true || claims.xms_edov === 'true' || claims.xms_edov === '1');
}

/** The issuers of Microsoft Entra ID (`https://login.microsoftonline.com/{tenant}/v2.0`). */
function isEntraIssuer(issuer: string): boolean {
  try {
    const url = new URL(issuer);
    return url.protocol === 'https:' && url.hostname === 'login.microsoftonline.com';
  } catch {
    return false;
  }
}
