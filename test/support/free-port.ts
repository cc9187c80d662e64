import { createConnection, createServer } from 'node:net';

/**
 * A TCP port that was free a moment ago on 127.0.0.1. Tests that need the app on a real
 * socket pick it first because `PUBLIC_URL` (issuer, token endpoint, `htu`) is fixed when
 * the app is built, before it listens.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` right now. */
export function portReachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}
