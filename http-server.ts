// The HTTP server under the Fastify app (app.ts): Node's server, HTTP or HTTPS, with its timers,
// and the gateway's error body where Node itself refuses a request (a malformed or slow one, an
// Expect other than 100-continue), which never reaches Fastify.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { FastifyServerFactory } from 'fastify';
import type { Limits } from './config.js';
import { sortedJson } from './lib/json.js';

/** The gateway's INVALID_REQUEST body. */
const invalidRequestBody = (explanation: string) => sortedJson({ error: { cause: 'INVALID_REQUEST', explanation }, result: 'ERROR' });

/**
 * What Node's HTTP parser refused (malformed, too slow, headers too large), in the gateway's shape.
 * A response to HEAD has no body (RFC 9110, 9.3.2): its Content-Length is the one GET would get.
 */
function clientErrorResponse(code: string | undefined, head = false): string {
  const [status, reason, explanation] =
    code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', 'The request was not received in time (REQUEST_TIMEOUT_MS)']
    : code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
    : code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? [413, 'Content Too Large', 'The chunk extensions of the request body are too large']
    : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = invalidRequestBody(explanation);
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`;
}

/** A request line's start: a method, one space, and the start of a target (no header line looks so). */
const REQUEST_LINE = /(?:^|\n)([!#$%&'*+.^_`|~0-9A-Za-z-]+) [^\s]/g;

/**
 * The method of the request that the client will take a refusal of Node's parser to answer, so
 * that HEAD gets no body. A client matches responses to its requests in order: while an earlier
 * request on the connection is unanswered (or the refused one's headers were complete: a 408 while
 * its body is slow), that is the socket's pending response's request. Otherwise it is the refused
 * request, whose request line is looked for in the packet the parser was reading (`rawPacket`, up
 * to `bytesParsed`, where it stopped): the last request line there is its own, since earlier
 * pipelined requests come before it, what follows the error point is not looked at, and no valid
 * header line (`name: value`; folded lines start with a space) reads as a request line. When the
 * packet does not hold it (its request line came in an earlier packet), the method is unknown and
 * the body is sent, as for every method but HEAD.
 */
function refusedMethod(error: Error & { rawPacket?: unknown; bytesParsed?: unknown }, socket: Socket): string | undefined {
  const pending = (socket as Socket & { _httpMessage?: { req?: IncomingMessage } | null })._httpMessage;
  if (pending) return pending.req?.method;
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return undefined;
  const end = typeof error.bytesParsed === 'number' ? Math.min(Math.max(error.bytesParsed, 0), packet.length) : packet.length;
  let method: string | undefined;
  for (const match of packet.subarray(0, end).toString('latin1').matchAll(REQUEST_LINE)) method = match[1];
  return method;
}

/** The server's TLS material: with `clientCa`, client certificates signed by it are asked for. */
export type TlsOptions = { cert: Buffer; key: Buffer; clientCa?: Buffer | undefined } | undefined;

/** Fastify's serverFactory: Node's own timers answer a request that is not received in time (408, clientErrorHandler). */
export function serverFactory(limits: Limits, tls: TlsOptions): FastifyServerFactory {
  return (handler) => {
    const timeouts = {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.requestTimeoutMs),
    };
    // HTTPS asks for a client certificate but does not demand one: Basic authentication
    // still works over it; plugins/auth.ts honours a certificate only when the CA signed it.
    const server = tls
      ? createHttpsServer({ ...timeouts, cert: tls.cert, key: tls.key, ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}) }, handler)
      : createServer(timeouts, handler);
    // An Expect other than 100-continue: Node would answer a bare 417 with an empty body; the
    // gateway's shape instead (RFC 9110, 10.1.1: a server MAY answer 417). The body that may
    // follow is not read: the connection closes. Node sends no body to HEAD.
    server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
      const body = invalidRequestBody('The Expect header is not supported: only 100-continue is');
      response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
      response.end(body);
    });
    return server;
  };
}

/** Fastify's clientErrorHandler: what Node's parser refused, answered in the gateway's shape. */
export function clientErrorHandler(error: Error, socket: Socket): void {
  // Nothing is written over a response already under way (it would corrupt it), as Node does.
  const underWay = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent;
  if (!socket.writable || underWay) return void socket.destroy(error);
  socket.end(clientErrorResponse((error as NodeJS.ErrnoException).code, refusedMethod(error, socket) === 'HEAD'));
}
