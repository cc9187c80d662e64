import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';
import { problemBody, problemContentType } from './problem.js';

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before a request exists
 * (bytes that are not HTTP, a `Content-Length` the body contradicts, headers or URL over
 * the size limit, a request not received in time). Answered as a problem document like
 * every other error, instead of Fastify's own JSON, then the connection is closed: after
 * a parse error the rest of the stream cannot be trusted. There is no path to name, so
 * `instance` is `/`.
 */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = clientProblem(error.code);
  this.log.debug({ err: error, status: problem.status }, 'client error before a request was parsed');
  if (!socket.writable) {
    socket.destroy(error);
    return;
  }
  const body = JSON.stringify(problemBody(problem, '/'));
  // end(), not write() and destroy(): the answer is flushed before the connection closes, so
  // the client reads it instead of a reset.
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}\r\nContent-Type: ${problemContentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

function clientProblem(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') return new ApiError('headers_too_large', 'The request line and headers together exceed the size limit; send long filters in fewer characters');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('request_timeout', 'The request was not received completely in time');
  return new ApiError('malformed_request', 'The request could not be parsed as HTTP/1.1 (for example a Content-Length that does not match the body)');
}
