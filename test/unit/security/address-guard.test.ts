import type { lookup } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { AddressGuard } from '../../../src/webhooks/address-guard.js';

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
