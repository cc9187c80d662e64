import { describe, expect, it } from 'vitest';
import { CidrError, IpAllowlist, isValidCidr, parseCidr } from '../../../src/lib/ip-allowlist.js';

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', { family: 'ipv4', address: '10.0.0.0', prefix: 8 }],
    ['0.0.0.0/0', { family: 'ipv4', address: '0.0.0.0', prefix: 0 }],
    ['203.0.113.7', { family: 'ipv4', address: '203.0.113.7', prefix: 32 }],
    ['2001:DB8::/32', { family: 'ipv6', address: '2001:db8::', prefix: 32 }],
    ['::1', { family: 'ipv6', address: '::1', prefix: 128 }],
    [' 192.168.1.0/24 ', { family: 'ipv4', address: '192.168.1.0', prefix: 24 }],
  ])('parses %j', (text, expected) => {
    expect(parseCidr(text)).toEqual(expected);
    expect(isValidCidr(text)).toBe(true);
  });

  it.each([
    ['', 'not an IPv4 or IPv6'],
    ['10.0.0.0/33', 'prefix'],
    ['2001:db8::/129', 'prefix'],
    ['10.0.0.0/', 'prefix'],
    ['10.0.0.0/08', 'prefix'],
    ['10.0.0.0/-1', 'prefix'],
    ['10.0.0.0/8/8', 'more than one'],
    ['10.0.0', 'not an IPv4 or IPv6'],
    ['256.0.0.0/8', 'not an IPv4 or IPv6'],
    ['010.0.0.1', 'not an IPv4 or IPv6'],
    ['example.com/24', 'not an IPv4 or IPv6'],
    ['fe80::1%eth0/64', 'zone ids'],
    ['1.2.3.4/8 or 1=1', 'prefix'],
  ])('refuses %j', (text, reason) => {
    expect(() => parseCidr(text)).toThrow(CidrError);
    expect(() => parseCidr(text)).toThrow(reason);
    expect(isValidCidr(text)).toBe(false);
  });
});

describe('IpAllowlist', () => {
  const list = new IpAllowlist(['10.0.0.0/8', '203.0.113.7', '2001:db8::/32']);

  it('matches IPv4 blocks and single addresses', () => {
    expect(list.allows('10.1.2.3')).toBe(true);
    expect(list.allows('11.0.0.1')).toBe(false);
    expect(list.allows('203.0.113.7')).toBe(true);
    expect(list.allows('203.0.113.8')).toBe(false);
  });

  it('matches IPv6 blocks', () => {
    expect(list.allows('2001:db8::1')).toBe(true);
    expect(list.allows('2001:DB8:ffff::1')).toBe(true);
    expect(list.allows('2001:db9::1')).toBe(false);
    expect(list.allows('::1')).toBe(false);
  });

  it('treats IPv4-mapped IPv6 addresses as IPv4', () => {
    expect(list.allows('::ffff:10.9.8.7')).toBe(true);
    expect(list.allows('::FFFF:203.0.113.7')).toBe(true);
    expect(list.allows('::ffff:11.0.0.1')).toBe(false);
  });

  it('refuses garbage addresses', () => {
    for (const ip of ['', 'localhost', '10.0.0', '10.0.0.1/8', 'fe80::1%eth0']) expect(list.allows(ip)).toBe(false);
  });

  it('allows everything when empty', () => {
    const open = new IpAllowlist([]);
    expect(open.allows('198.51.100.1')).toBe(true);
    expect(open.allows('2001:db8::1')).toBe(true);
  });

  it('refuses an invalid entry at construction', () => {
    expect(() => new IpAllowlist(['10.0.0.0/8', 'nope'])).toThrow(CidrError);
  });

  it('exposes the parsed blocks', () => {
    expect(list.cidrs.map((cidr) => `${cidr.address}/${cidr.prefix}`)).toEqual(['10.0.0.0/8', '203.0.113.7/32', '2001:db8::/32']);
  });
});
