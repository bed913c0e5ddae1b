// Whether a request's headers announce a body that Fastify goes on to read: a Content-Length
// other than 0, or chunks (RFC 9112, 6.3: without either there is none). A stream wrapped around a
// body that never comes would wait for it: the hooks that wrap the body ask this first.
import type { IncomingHttpHeaders } from 'node:http';

export function announcesBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return length === undefined ? headers['transfer-encoding'] !== undefined : length !== '0';
}
