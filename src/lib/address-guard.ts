import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { IpAllowlist } from './ip-allowlist.js';

/** IPv4 addresses that are not the public internet: loopback, private, link-local (cloud metadata), CGNAT, multicast, reserved. */
export const refusedIpv4Ranges: readonly (readonly [network: string, prefix: number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
/**
 * IANA's IPv6 special-purpose registry, plus the forms that embed an IPv4 address
 * (IPv4-compatible, -translated, NAT64, 6to4, Teredo): none is where a receiver lives.
 */
export const refusedIpv6Ranges: readonly (readonly [network: string, prefix: number])[] = [
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  // Discard-only (RFC 6666) and the dummy prefix (RFC 9780): next to each other, not nested.
  ['100::', 64],
  ['100:0:0:1::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];
const nonPublic = new BlockList();
for (const [network, prefix] of refusedIpv4Ranges) nonPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of refusedIpv6Ranges) nonPublic.addSubnet(network, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`), if it is one. */
function mappedIpv4(address: string): string | undefined {
  const match = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return match?.[1];
}

/** The host of `url` as a name or a bare address: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Decides which addresses the service's outgoing requests (webhook deliveries, calendar
 * imports) may connect to: public ones, and non-public ones only inside
 * `WEBHOOK_ALLOWED_NETWORKS`. The check runs on the address actually connected to
 * (see {@link guardedLookup}), so a name that resolves differently at delivery (DNS
 * rebinding) cannot reach an internal address.
 */
export class AddressGuard {
  private readonly allowed: IpAllowlist | undefined;

  constructor(
    allowedNetworks: readonly string[],
    /** The resolver (`dns.lookup`; tests inject one that answers differently over time). */
    private readonly resolve: typeof dnsLookup = dnsLookup,
  ) {
    this.allowed = allowedNetworks.length > 0 ? new IpAllowlist(allowedNetworks) : undefined;
  }

  permits(address: string): boolean {
    if (this.allowed?.allows(address)) return true;
    const v4 = mappedIpv4(address);
    if (v4 !== undefined) return this.permits(v4);
    const family = isIP(address);
    if (family === 0) return false;
    return !nonPublic.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /**
   * Why a connection to the host of `url` is refused before any lookup: an IP literal is
   * connected to directly (Node resolves nothing, so {@link guardedLookup} never sees it).
   * `undefined` for a name, or a literal the guard permits.
   */
  literalRefusal(url: URL): string | undefined {
    const host = hostOf(url);
    if (isIP(host) === 0 || this.permits(host)) return undefined;
    return `EADDRNOTALLOWED: ${host} is an address webhooks may not reach`;
  }

  /** Every address `hostname` resolves to now (an IP literal is its own address). */
  addressesOf(hostname: string): Promise<string[]> {
    if (isIP(hostname) !== 0) return Promise.resolve([hostname]);
    return new Promise((resolve, reject) => {
      this.resolve(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve((addresses as LookupAddress[]).map((entry) => entry.address))));
    });
  }

  /**
   * A `lookup` for `http.request`: resolves the name, keeps only permitted addresses, and
   * hands the socket exactly those; no permitted address fails the connection.
   */
  guardedLookup(): (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => void {
    return (hostname, options, callback) => {
      this.resolve(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '');
        const permitted = (addresses as LookupAddress[]).filter((entry) => this.permits(entry.address));
        if (permitted.length === 0) {
          return callback(Object.assign(new Error(`${hostname} resolves only to addresses webhooks may not reach`), { code: 'EADDRNOTALLOWED' }), '');
        }
        if (options.all) return callback(null, permitted);
        const first = permitted[0] as LookupAddress;
        return callback(null, first.address, first.family);
      });
    };
  }
}
