import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';

/** Ends keep-alive connections as their last response goes out, once shutdown has begun. */
export interface ConnectionDrain {
  /** From now on, no connection outlives the response it is carrying. */
  drain(): void;
}

/**
 * The response a connection is carrying right now. Node's HTTP server keeps it on the
 * socket (`_httpMessage`, set while the response is attached, cleared when it finishes);
 * the same field http-terminator and Node's own server rely on. Reading it at drain time
 * costs nothing per request, where a `request` listener ran on every one.
 */
function responseOn(socket: Socket): ServerResponse | undefined {
  const response = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
  return response && typeof response === 'object' && 'headersSent' in response ? (response as ServerResponse) : undefined;
}

/**
 * Tracks the connections of `server`, so that shutdown can close the busy ones too.
 *
 * Fastify's `close()` destroys the connections idle at that moment and answers requests that
 * arrive later with 503 and `Connection: close`. A keep-alive connection whose request was in
 * flight is neither: once its response is sent it sits idle until `keepAliveTimeout` (72 s),
 * and `close()` waits for it, past any grace period. Draining marks responses not yet started
 * `Connection: close` (the client then knows not to reuse the connection), and closes the
 * connections of responses already streaming as soon as they finish. Connections are
 * tracked, not requests: the bookkeeping happens once per connection.
 */
export function connectionDrain(server: Server): ConnectionDrain {
  const sockets = new Set<Socket>();
  const closeWhenFinished = (response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
    // Node detaches the socket on 'finish'; the connection is idle from the next tick.
    else response.once('finish', () => setImmediate(() => server.closeIdleConnections()));
  };
  // HTTPS hands the HTTP parser the TLS socket, which carries the response.
  const connectionEvent = server instanceof TlsServer ? 'secureConnection' : 'connection';
  server.on(connectionEvent, (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    drain() {
      // Requests that start from now on (on a busy keep-alive connection) close theirs too.
      server.on('request', (_request, response: ServerResponse) => closeWhenFinished(response));
      for (const socket of sockets) {
        const response = responseOn(socket);
        if (response) closeWhenFinished(response);
      }
    },
  };
}
