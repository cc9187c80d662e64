/**
 * Parsers for the settings that name other services and addresses (the interface to listen
 * on, Redis, CORS origins, SMTP, the SMS gateway). Each fails the boot with a message naming
 * the variable its declaration gives it.
 */
import { isIP } from 'node:net';
import { commaList } from './setting-kinds.js';
import type { Parser } from './setting-kinds.js';

/**
 * An optional URL of another service with one of `schemes` and a host. The value is not
 * echoed: such URLs often carry a password or a token.
 */
export function optionalServiceUrl(schemes: readonly string[]): Parser<string | undefined> {
  const expected = schemes.map((scheme) => `${scheme}//`).join(' or ');
  return (raw, { name }) => {
    if (raw === undefined || raw === '') return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Error(`${name} must be an absolute ${expected} URL`);
    }
    if (!schemes.includes(url.protocol)) throw new Error(`${name} must be a ${expected} URL, got a ${url.protocol}// one`);
    if (url.hostname === '') throw new Error(`${name} must name a host (${expected}host…)`);
    return raw;
  };
}

/**
 * Comma-separated browser origins, each exactly `scheme://host[:port]` as a browser sends it
 * in `Origin` (http or https, no path, no trailing slash, no default port): anything else
 * would never match and silently leave CORS off for that client.
 */
export const originList: Parser<readonly string[]> = (raw, { name }) => {
  const list = commaList(raw);
  for (const entry of list) {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const http = url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:');
    if (!url || !http || url.origin !== entry) {
      const hint = http && url ? `; browsers send "${url.origin}"` : '';
      throw new Error(`${name}: "${entry.slice(0, 80)}" is not an origin (http(s)://host[:port], no path)${hint}`);
    }
  }
  return Object.freeze(list);
};

const mailboxAddress = /^[^\s@<>()[\]",;:\\]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;
const withDisplayName = /^([^<>]*)<([^<>]+)>$/;

/**
 * An e-mail sender: `addr@domain` or `Display Name <addr@domain>`. Unset gives `fallback`;
 * an empty value is refused (it would send mail without a sender).
 */
export const mailbox: Parser<string, string> = (raw, { name, fallback }) => {
  if (raw === undefined) return fallback;
  const value = raw.trim();
  if (value === '') throw new Error(`${name} is empty: unset it for the default "${fallback}", or give an address`);
  // Control characters (CR, LF) would let the value add mail headers.
  const control = /\p{Cc}/u.test(value);
  const address = withDisplayName.exec(value)?.[2] ?? value;
  if (control || !mailboxAddress.test(address)) throw new Error(`${name} must be an e-mail address or "Name <address>", got ${JSON.stringify(value.slice(0, 80))}`);
  return value;
};

const hostLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * The interface to listen on: an IPv4 or IPv6 address, or a host name. A dotted name whose
 * last label is all digits (`999.1.1.1`) is neither, so it is refused here instead of failing
 * later in the resolver.
 */
export const listenHost: Parser<string, string> = (raw, { name, fallback }) => {
  if (raw === undefined || raw === '') return fallback;
  if (isIP(raw) !== 0) return raw;
  const labels = raw.replace(/\.$/, '').split('.');
  const hostName = raw.length <= 253 && labels.every((label) => hostLabel.test(label)) && !/^\d+$/.test(labels.at(-1) ?? '');
  if (!hostName) throw new Error(`${name} "${raw.slice(0, 80)}" is not an IP address or a host name`);
  return raw;
};
