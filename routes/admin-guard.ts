// What the admin pages and API answer with before anything else (docs/timeline-and-cli.md, "The
// timeline page and API"):
//   - a Host check. A page of another site that the admin's browser opens can have its name
//     re-resolved to the gateway's address (DNS rebinding) and then send requests as the same
//     origin: it never has the password, but its wrong ones would lock the admin out
//     (AUTH_FAILURE_LIMIT). Its requests carry its own name in Host, so the admin answers only a
//     Host that is an IP address, `localhost` (or a name under `.localhost`), HOST when it is a
//     name, or a name of ADMIN_HOSTS; another is refused (403) before the password is looked at.
//   - headers that keep the pages in their own window and their code their own: a
//     Content-Security-Policy allowing only the pages' own inline script and style (by their
//     SHA-256) and requests to the gateway itself, X-Frame-Options DENY, nosniff, no referrer.
import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../plugins/errors.js';
import { inlineHashes } from '../lib/inline-hashes.js';

/** The host of a Host header, without its port or an IPv6 address's brackets, lower case. */
function hostOf(header: string): string {
  const bracketed = /^\[([^\]]*)\](:\d*)?$/.exec(header);
  if (bracketed) return (bracketed[1] as string).toLowerCase();
  return header.replace(/:\d*$/, '').toLowerCase().replace(/\.$/, '');
}

/** Whether the admin answers a request whose Host header is `header` (none: not a browser's). */
export function adminHostAllowed(header: string | undefined, names: readonly string[]): boolean {
  if (header === undefined || header === '') return true;
  const host = hostOf(header);
  return isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost') || names.includes(host);
}

/** The headers of every admin answer, the pages' inline code allowed by its hash. */
export function adminHeaders(pages: readonly string[]): Record<string, string> {
  const policy = [
    "default-src 'none'", `script-src ${inlineHashes(pages, 'script').join(' ')}`, `style-src ${inlineHashes(pages, 'style').join(' ')}`,
    "connect-src 'self'", "img-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-security-policy': policy,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}

/**
 * The admin plugin's first hook (before its password check): the headers on every answer, then
 * the Host check. `names`: the names besides IP addresses and localhost (HOST, ADMIN_HOSTS).
 */
export function guardAdmin(app: FastifyInstance, headers: Record<string, string>, names: readonly string[]): void {
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    reply.headers(headers);
    if (adminHostAllowed(request.headers.host, names)) {
      done();
      return;
    }
    request.log.info({ cause: 'INVALID_REQUEST', status: 403 }, 'admin request for another host refused');
    const explanation = "The admin pages and API answer only for localhost, an IP address, HOST or a name of ADMIN_HOSTS: this request's Host is none of them";
    void reply.code(403).send(errorBody('INVALID_REQUEST', { explanation }));
  });
}
