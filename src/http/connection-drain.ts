import type { Server, ServerResponse } from 'node:http';

/** Ends keep-alive connections as their last response goes out, once shutdown has begun. */
export interface ConnectionDrain {
  /** From now on, no connection outlives the response it is carrying. */
  drain(): void;
}

/**
 * Tracks the responses under way on `server`, so that shutdown can close the busy
 * connections too.
 *
 * Fastify's `close()` destroys the connections idle at that moment; a request that arrives
 * later on an open one is served with `Connection: close` (`return503OnClosing: false`). A
 * keep-alive connection whose request was in flight is neither: once its response is sent it
 * sits idle until `keepAliveTimeout` (72 s), and `close()` waits for it, past any grace
 * period. Draining marks the responses not yet started `Connection: close` (the client then
 * knows not to reuse the connection), and closes the connections of responses already
 * streaming as soon as they finish. Public events only: each response is added as its
 * request arrives and removed on its `close`, with one shared listener.
 */
export function connectionDrain(server: Server): ConnectionDrain {
  const underWay = new Set<ServerResponse>();
  function forget(this: ServerResponse) {
    underWay.delete(this);
  }
  server.on('request', (_request, response: ServerResponse) => {
    underWay.add(response);
    response.on('close', forget);
  });
  // Node detaches the socket on 'finish'; the connection is idle from the next tick.
  const closeIdle = () => setImmediate(() => server.closeIdleConnections());
  const closeWhenFinished = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
    else if (response.writableFinished) closeIdle();
    else response.once('finish', closeIdle);
  };
  return {
    drain() {
      // Requests that start from now on (on a busy keep-alive connection) close theirs too.
      server.on('request', (_request, response: ServerResponse) => closeWhenFinished(response));
      for (const response of underWay) closeWhenFinished(response);
    },
  };
}
