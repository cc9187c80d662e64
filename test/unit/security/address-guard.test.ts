import type { lookup } from 'node:dns';
import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AddressGuard, refusedIpv4Ranges, refusedIpv6Ranges } from '../../../src/lib/address-guard.js';

describe('webhook address guard', () => {
  const guard = new AddressGuard([]);

  it('permits public addresses and refuses loopback, private, link-local (metadata), CGNAT, multicast and mapped ones', () => {
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '8.8.8.8']) expect(guard.permits(address), address).toBe(true);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '::1',
      '::',
      'fc00::1',
      'fd12::1',
      'fe80::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '2002:7f00:1::',
      'fec0::1',
      '64:ff9b:1::7f00:1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '3fff::1',
      '5f00::1',
      '192.88.99.1',
      'not-an-ip',
    ]) {
      expect(guard.permits(address), address).toBe(false);
    }
  });

  it('lets WEBHOOK_ALLOWED_NETWORKS open chosen non-public ranges only', () => {
    const allowing = new AddressGuard(['127.0.0.1/32', '10.20.0.0/16']);
    expect(allowing.permits('127.0.0.1')).toBe(true);
    expect(allowing.permits('10.20.3.4')).toBe(true);
    expect(allowing.permits('10.21.0.1')).toBe(false);
    expect(allowing.permits('127.0.0.2')).toBe(false);
  });

  it('checks the address a name resolves to when connecting: localhost is refused', async () => {
    const lookup = guard.guardedLookup();
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => lookup('localhost', {}, (failure) => resolve(failure)));
    expect(error?.code).toBe('EADDRNOTALLOWED');
  });
});

/** Every refused range (`network/prefix`) with one address inside it, away from the network address. */
const insideEachRefusedRange: readonly (readonly [range: string, inside: string])[] = [
  ['0.0.0.0/8', '0.1.2.3'],
  ['10.0.0.0/8', '10.255.255.254'],
  ['100.64.0.0/10', '100.127.255.254'],
  ['127.0.0.0/8', '127.255.255.254'],
  ['169.254.0.0/16', '169.254.169.254'],
  ['172.16.0.0/12', '172.31.255.254'],
  ['192.0.0.0/24', '192.0.0.8'],
  ['192.0.2.0/24', '192.0.2.200'],
  ['192.88.99.0/24', '192.88.99.1'],
  ['192.168.0.0/16', '192.168.255.254'],
  ['198.18.0.0/15', '198.19.255.254'],
  ['198.51.100.0/24', '198.51.100.7'],
  ['203.0.113.0/24', '203.0.113.9'],
  ['224.0.0.0/4', '239.255.255.250'],
  ['240.0.0.0/4', '255.255.255.255'],
  ['::/96', '::1'],
  ['::ffff:0:0:0/96', '::ffff:0:808:808'],
  ['64:ff9b::/96', '64:ff9b::808:808'],
  ['64:ff9b:1::/48', '64:ff9b:1:ffff::1'],
  ['100::/64', '100::ffff:ffff:ffff:ffff'],
  ['100:0:0:1::/64', '100:0:0:1::1'],
  ['2001::/23', '2001:1ff:ffff::1'],
  ['2001:db8::/32', '2001:db8:ffff::1'],
  ['2002::/16', '2002:808:808::1'],
  ['3fff::/20', '3fff:fff:ffff::1'],
  ['5f00::/16', '5f00:abcd::1'],
  ['fc00::/7', 'fdff:ffff::1'],
  ['fe80::/10', 'febf::1'],
  ['fec0::/10', 'feff::1'],
  ['ff00::/8', 'ff02::1'],
];

/** Public addresses right next to a refused range: the ranges are no wider than they should be. */
const justOutside: readonly (readonly [range: string, outside: string])[] = [
  ['0.0.0.0/8', '1.0.0.0'],
  ['10.0.0.0/8', '9.255.255.255'],
  ['10.0.0.0/8', '11.0.0.0'],
  ['100.64.0.0/10', '100.63.255.255'],
  ['100.64.0.0/10', '100.128.0.0'],
  ['127.0.0.0/8', '128.0.0.0'],
  ['172.16.0.0/12', '172.15.255.255'],
  ['172.16.0.0/12', '172.32.0.0'],
  ['192.168.0.0/16', '192.169.0.0'],
  ['198.18.0.0/15', '198.20.0.0'],
  ['224.0.0.0/4', '223.255.255.255'],
  ['2001::/23', '2001:200::1'],
  ['2001:db8::/32', '2001:db9::1'],
  ['2002::/16', '2003::1'],
  ['3fff::/20', '3fff:1000::1'],
];

describe('every refused range, one address at a time', () => {
  const guard = new AddressGuard([]);
  const familyOf = (address: string) => (address.includes(':') ? 'ipv6' : 'ipv4');
  const contains = (range: string, address: string) => {
    const [network = '', prefix] = range.split('/');
    const block = new BlockList();
    block.addSubnet(network, Number(prefix), familyOf(network));
    return block.check(address, familyOf(address));
  };

  it('the table names each range the guard refuses, no more and no fewer', () => {
    const refused = [...refusedIpv4Ranges, ...refusedIpv6Ranges].map(([network, prefix]) => `${network}/${prefix}`);
    expect(insideEachRefusedRange.map(([range]) => range)).toEqual(refused);
  });

  it.each(insideEachRefusedRange)('refuses an address inside %s (%s)', (range, inside) => {
    expect(contains(range, inside)).toBe(true);
    expect(guard.permits(inside)).toBe(false);
  });

  it.each(justOutside)('permits a public address just outside %s (%s)', (range, outside) => {
    expect(contains(range, outside)).toBe(false);
    expect(guard.permits(outside)).toBe(true);
  });
});

describe('webhook delivery to an IP literal', () => {
  it('is refused before any connection when the address is not permitted, as a name resolving there is', async () => {
    const { createServer } = await import('node:http');
    const { postWebhook } = await import('../../../src/webhooks/deliver.js');
    let received = 0;
    const receiver = createServer((_request, response) => {
      received += 1;
      response.end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as { port: number };
    try {
      const refused = await postWebhook(`http://127.0.0.1:${port}/hook`, {}, '{}', { guard: new AddressGuard([]), timeoutMs: 2000 });
      expect(refused).toEqual({ status: null, detail: 'EADDRNOTALLOWED: 127.0.0.1 is an address webhooks may not reach' });
      expect((await postWebhook(`http://[::1]:${port}/hook`, {}, '{}', { guard: new AddressGuard([]), timeoutMs: 2000 })).detail).toContain('EADDRNOTALLOWED: ::1');
      expect(received).toBe(0);
      // Inside WEBHOOK_ALLOWED_NETWORKS it is delivered.
      expect((await postWebhook(`http://127.0.0.1:${port}/hook`, {}, '{}', { guard: new AddressGuard(['127.0.0.1/32']), timeoutMs: 2000 })).status).toBe(200);
      expect(received).toBe(1);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});

describe('webhook delivery when DNS changes between creation and delivery (rebinding)', () => {
  it('connects only to the address it checked: a name that now resolves to 10.0.0.1 is refused at the socket', async () => {
    const { postWebhook } = await import('../../../src/webhooks/deliver.js');
    let answer = '93.184.216.34';
    // An injected resolver standing in for DNS: public at creation, internal at delivery.
    const resolver = ((_host: string, _options: unknown, callback: (error: null, addresses: { address: string; family: number }[]) => void) =>
      callback(null, [{ address: answer, family: 4 }])) as unknown as typeof lookup;
    const guard = new AddressGuard([], resolver);
    answer = '10.0.0.1';
    const result = await postWebhook('http://rebinding.test/hook', {}, '{}', { guard, timeoutMs: 2000 });
    expect(result.status).toBeNull();
    expect(result.detail).toContain('EADDRNOTALLOWED');
  });

  it('reads decimal, octal and hex IPv4 forms as the addresses they are', () => {
    const guard = new AddressGuard([]);
    for (const url of ['http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.1/', 'http://[::ffff:7f00:1]/']) {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      expect(guard.permits(host), url).toBe(false);
    }
  });
});
