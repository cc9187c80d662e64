/**
 * Per-client source-address allowlists. Parsing is strict so that a typo in an operator's
 * list fails loudly at registration instead of silently allowing or refusing traffic.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

/** A parsed CIDR block. */
export interface Cidr {
  readonly family: 'ipv4' | 'ipv6';
  /** The address as written (lower-cased). */
  readonly address: string;
  readonly prefix: number;
}

/** A string that is not a valid CIDR block or address. */
export class CidrError extends Error {
  readonly code = 'invalid_cidr';

  constructor(text: string, reason: string) {
    super(`invalid CIDR ${JSON.stringify(text.slice(0, 60))}: ${reason}`);
    this.name = 'CidrError';
  }
}

const prefixPattern = /^(?:0|[1-9][0-9]{0,2})$/;

/**
 * Parses `a.b.c.d/n`, `x::y/n`, or a bare address (meaning /32 or /128). Zone ids
 * (`fe80::1%eth0`), leading zeros and out-of-range prefixes are refused.
 */
export function parseCidr(text: string): Cidr {
  if (typeof text !== 'string' || text.length > 100) throw new CidrError(String(text), 'not a string of at most 100 characters');
  const parts = text.trim().toLowerCase().split('/');
  if (parts.length > 2) throw new CidrError(text, 'more than one "/"');
  const [address = '', prefixText] = parts;
  if (address.includes('%')) throw new CidrError(text, 'zone ids are not allowed');
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  if (!family) throw new CidrError(text, 'not an IPv4 or IPv6 address');
  const max = family === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return Object.freeze({ family, address, prefix: max });
  if (!prefixPattern.test(prefixText) || Number(prefixText) > max) throw new CidrError(text, `prefix must be an integer from 0 to ${max}`);
  return Object.freeze({ family, address, prefix: Number(prefixText) });
}

/** Whether `text` parses with {@link parseCidr}. */
export function isValidCidr(text: string): boolean {
  try {
    parseCidr(text);
    return true;
  } catch {
    return false;
  }
}

const mappedIpv4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** A set of CIDR blocks; an empty list allows every address. */
export class IpAllowlist {
  readonly #blocks = new BlockList();
  readonly #empty: boolean;
  /** The parsed blocks, in the order given. */
  readonly cidrs: readonly Cidr[];

  /** Throws {@link CidrError} on the first invalid entry. */
  constructor(cidrs: readonly string[]) {
    this.cidrs = Object.freeze(cidrs.map(parseCidr));
    for (const cidr of this.cidrs) this.#blocks.addSubnet(cidr.address, cidr.prefix, cidr.family);
    this.#empty = this.cidrs.length === 0;
  }

  /** Whether `ip` (as reported by the socket, IPv4-mapped IPv6 included) is allowed. */
  allows(ip: string): boolean {
    if (this.#empty) return true;
    if (typeof ip !== 'string') return false;
    // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d; judge them as IPv4.
    const address = mappedIpv4.exec(ip)?.[1] ?? ip;
    if (isIPv4(address)) return this.#blocks.check(address, 'ipv4');
    if (isIPv6(address) && !address.includes('%')) return this.#blocks.check(address, 'ipv6');
    return false;
  }
}
