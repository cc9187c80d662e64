import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the feed server answers for a path: a status, headers and a body (or a handler of its own). */
export type FeedRoute = { readonly status?: number; readonly headers?: Record<string, string>; readonly body?: string | Buffer } | ((request: IncomingMessage, response: ServerResponse) => void);

/**
 * A local HTTP server standing in for the channels whose feeds an import fetches (Airbnb,
 * Booking.com, Google): the test sets what each path answers, changes it between syncs, and
 * reads how often each was fetched. Loopback only.
 */
export interface FeedServer {
  readonly origin: string;
  set(path: string, route: FeedRoute): void;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startFeedServer(): Promise<FeedServer> {
  const routes = new Map<string, FeedRoute>();
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (!route) {
      response.writeHead(404).end('not found');
      return;
    }
    if (typeof route === 'function') {
      route(request, response);
      return;
    }
    response.writeHead(route.status ?? 200, { 'content-type': 'text/calendar; charset=utf-8', ...route.headers }).end(route.body ?? '');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    set: (path, route) => void routes.set(path, route),
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
