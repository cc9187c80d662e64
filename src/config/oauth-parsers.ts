/**
 * Parsers for the OAuth2 login settings (the providers and the redirect URIs). Each fails
 * the boot with a message naming the variable its declaration gives it.
 */
import { commaList } from './setting-kinds.js';
import type { Parser, Setting } from './setting-kinds.js';

/** An external OpenID provider users may sign in with (`docs/oauth-login.md`). */
export interface OAuthProviderConfig {
  /** Path segment of `/v1/auth/oauth/{id}/…`. */
  readonly id: string;
  /** Issuer identifier; discovery reads `{issuer}/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

const providerId = /^[a-z0-9][a-z0-9-]{0,31}$/;
const fields = ['id', 'issuer', 'client_id', 'client_secret'];

/**
 * Loopback hosts: the only ones an `http:` redirect URI may name (RFC 8252 §7.3: the
 * browser hands the code to an application on the same machine).
 */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** The issuer of provider `index`; plain http only while the development switch `allowHttp` (named by `switchName`) is on. */
function issuerOf(name: string, index: number, value: unknown, allowHttp: boolean, switchName: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${name}[${index}].issuer must be the provider's issuer URL`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name}[${index}].issuer "${value.slice(0, 80)}" is not an absolute URL`);
  }
  if (url.search || url.hash || url.username || url.password) throw new Error(`${name}[${index}].issuer must not carry a query, fragment or credentials`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp)) {
    throw new Error(`${name}[${index}].issuer must use https (plain http only with ${switchName}=true, for development), got "${value.slice(0, 80)}"`);
  }
  return value;
}

/**
 * The providers: a JSON array of `{ id, issuer, client_id, client_secret }`; unset or empty
 * is none. Issuers are https unless the setting `allowHttp` is true.
 */
export function oauthProviders(allowHttp: Setting<boolean>): Parser<readonly OAuthProviderConfig[]> {
  return (raw, { name }, read) => {
    if (raw === undefined || raw.trim() === '') return Object.freeze([]);
    const httpAllowed = allowHttp.parse(read(allowHttp), read);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw new Error(`${name} must be a JSON array of { "id", "issuer", "client_id", "client_secret" }`);
    }
    if (!Array.isArray(parsed)) throw new Error(`${name} must be a JSON array of { "id", "issuer", "client_id", "client_secret" }`);
    const seen = new Set<string>();
    const providers = parsed.map((entry: unknown, index): OAuthProviderConfig => {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new Error(`${name}[${index}] must be an object`);
      const item = entry as Record<string, unknown>;
      const unknown = Object.keys(item).filter((key) => !fields.includes(key));
      if (unknown.length > 0) throw new Error(`${name}[${index}] has unknown fields: ${unknown.join(', ')} (allowed: ${fields.join(', ')})`);
      if (typeof item.id !== 'string' || !providerId.test(item.id)) throw new Error(`${name}[${index}].id must be 1–32 lower-case letters, digits or dashes (it is a path segment)`);
      if (seen.has(item.id)) throw new Error(`${name}: the id "${item.id}" is used twice`);
      seen.add(item.id);
      if (typeof item.client_id !== 'string' || item.client_id === '') throw new Error(`${name}[${index}].client_id must be a non-empty string`);
      if (typeof item.client_secret !== 'string' || item.client_secret === '')
        throw new Error(`${name}[${index}].client_secret must be a non-empty string (use ${name}_FILE to keep it out of the environment)`);
      return Object.freeze({ id: item.id, issuer: issuerOf(name, index, item.issuer, httpAllowed, allowHttp.env), clientId: item.client_id, clientSecret: item.client_secret });
    });
    return Object.freeze(providers);
  };
}

/**
 * The redirect URIs: comma-separated URIs the login may return to, compared later as exact
 * strings. Each must be absolute, https (http on a loopback host; a private-use scheme with
 * a dot for native apps, RFC 8252 §7.1), without fragment or credentials. At least one is
 * required while the setting `providers` names any.
 */
export function oauthRedirectUris(providers: Setting<unknown>): Parser<readonly string[]> {
  return (raw, { name }, read) => {
    const list = commaList(raw);
    for (const uri of list) {
      let url: URL;
      try {
        url = new URL(uri);
      } catch {
        throw new Error(`${name}: "${uri.slice(0, 80)}" is not an absolute URI`);
      }
      if (url.hash || uri.includes('#')) throw new Error(`${name}: "${uri.slice(0, 80)}" must not carry a fragment (RFC 6749 §3.1.2)`);
      if (url.username || url.password) throw new Error(`${name}: "${uri.slice(0, 80)}" must not carry credentials`);
      const privateUse = /^[a-z][a-z0-9+-]*\.[a-z0-9.+-]+:$/.test(url.protocol);
      if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)) && !privateUse) {
        throw new Error(`${name}: "${uri.slice(0, 80)}" must use https (http only on a loopback host, or a private-use scheme such as com.example.app:)`);
      }
    }
    const named = (read(providers) ?? '').trim();
    if (list.length === 0 && named !== '' && named !== '[]') throw new Error(`${name} must list at least one redirect URI when ${providers.env} is set`);
    return Object.freeze(list);
  };
}
