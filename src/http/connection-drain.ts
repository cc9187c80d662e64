import type { Server } from 'node:http';
import type { ServerResponse } from 'node:http';

/** Ends keep-alive connections as their last response goes out, once shutdown has begun. */
export interface ConnectionDrain {
  /** From now on, no connection outlives the response it is carrying. */
  drain(): void;
}

/**
 * Tracks the responses in flight on `server`, so that shutdown can close their connections.
 *
 * Fastify's `close()` destroys the connections idle at that moment and answers requests that
 * arrive later with 503 and `Connection: close`. A keep-alive connection whose request was in
 * flight is neither: once its response is sent it sits idle until `keepAliveTimeout` (72 s),
 * and `close()` waits for it, past any grace period. Draining marks responses not yet started
 * `Connection: close` (the client then knows not to reuse the connection), and closes the
 * connections of responses already streaming as soon as they finish.
 */
export function connectionDrain(server: Server): ConnectionDrain {
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  const closeWhenFinished = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
    // Node detaches the socket on 'finish'; the connection is idle from the next tick.
    else response.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };
  // One listener function for every response (no closure per request on the hot path).
  function settled(this: ServerResponse): void {
    inFlight.delete(this);
  }
  server.on('request', (_request, response: ServerResponse) => {
    inFlight.add(response);
    response.on('close', settled);
    if (draining) closeWhenFinished(response);
  });
  return {
    drain() {
      draining = true;
      for (const response of inFlight) closeWhenFinished(response);
    },
  };
}
