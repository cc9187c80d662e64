import { describe, expect, it } from 'vitest';
import { listenFailure } from '../../../src/http/listen-failure.js';

/** An error shaped as Node's `listen` rejects with. */
function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`listen ${code}: 0.0.0.0:3000`), { code, syscall: 'listen' });
}

describe('listenFailure', () => {
  it.each([
    ['EADDRINUSE', '0.0.0.0', 3000, 'cannot listen on 0.0.0.0:3000 (address in use, EADDRINUSE): set PORT (or HOST) to a free address'],
    ['EACCES', '0.0.0.0', 80, 'cannot listen on 0.0.0.0:80 (permission denied, EACCES): set PORT to 1024 or above, or give this user the right to bind low ports'],
    ['EADDRNOTAVAIL', '::1', 3000, 'cannot listen on [::1]:3000 (no address of this machine, EADDRNOTAVAIL): set HOST to an address of this machine, or 0.0.0.0 for all'],
    ['ENOTFOUND', 'api.internal', 3000, 'cannot listen on api.internal:3000 (the name does not resolve, ENOTFOUND): set HOST to an address or a resolvable name of this machine'],
  ])('%s on %s:%i names the address and the settings to change', (code, host, port, message) => {
    const error = listenFailure(errno(code), host, port);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(message);
  });

  it('returns any other failure as it was', () => {
    const other = errno('EMFILE');
    expect(listenFailure(other, '0.0.0.0', 3000)).toBe(other);
    // A code that is a property of every object is not mistaken for a known one.
    const inherited = errno('constructor');
    expect(listenFailure(inherited, '0.0.0.0', 3000)).toBe(inherited);
    expect(listenFailure('not an error', '0.0.0.0', 3000)).toBe('not an error');
  });
});
