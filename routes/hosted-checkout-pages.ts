// The browser half of Hosted Checkout, on the real gateway's paths: the Checkout JavaScript
// library (GET /static/checkout/checkout.min.js, and the legacy GET
// /checkout/version/{n}/checkout.js with showLightbox; web/checkout/checkout-*.js) and the pages
// it sends the payer to: the payment page /checkout/pay/{sessionId}, its embedded variant
// /checkout/entry/{sessionId} (an iframe in the merchant's page) and the receipt
// /checkout/receipt/{sessionId} (after a payment with no returnUrl), and the small page a 3-D
// Secure challenge on the embedded page ends on (/checkout/entry/{sessionId}/return). The pages are one static
// document (web/checkout/pay.html with its stylesheet and scripts written in): it reads the
// checkout from /checkout/api/{sessionId}, takes the card in the hosted fields of session.js
// (the same frames as Hosted Session, from the same origin) and pays through that API. Headers:
//   - the library: a script any page may load (CORS *), never sniffed;
//   - the pages: their own inline code (by hash) and the gateway's scripts and frames only, no
//     referrer (the session id stays off the merchant's logs), never cached; the payment page
//     and the receipt in a window of their own, the embedded page framed by any merchant.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PROJECT_ROOT } from '../config.js';
import { InvalidRequest } from '../domain/errors.js';
import { inlineHashes } from '../lib/inline-hashes.js';
import { Ascii, Strict } from '../schemas/common.js';
import { VersionParam } from '../schemas/pay.js';
import { checkVersion } from '../schemas/versions.js';
import { loadPage } from './admin-pages.js';

const WEB = join(PROJECT_ROOT, 'web', 'checkout');
const read = (name: string) => readFileSync(join(WEB, name), 'utf8');

/** The last version whose library is /checkout/version/{n}/checkout.js (Lightbox); from 63 on it is checkout.min.js. */
export const LAST_LEGACY_CHECKOUT_VERSION = 62;

/** The library: its parts in one function of its configuration (the path's version, or none for checkout.min.js). */
export function checkoutScript(version: number | null): string {
  const config = JSON.stringify({ version, legacy: version !== null });
  return `(function (CONFIG) {\n'use strict';\n${read('checkout-calls.js')}\n${read('checkout-api.js')}\n})(${config});\n`;
}

/** The pages' headers: their own inline code, the gateway's scripts (session.js) and frames (fields, 3-D Secure). */
export function pageHeaders(page: string, ancestors: string): Record<string, string> {
  const policy = [
    "default-src 'none'", `script-src 'self' ${inlineHashes([page], 'script').join(' ')}`, `style-src ${inlineHashes([page], 'style').join(' ')}`,
    "connect-src 'self'", "frame-src 'self'", "img-src 'self' data:", "form-action 'self'", "base-uri 'none'", `frame-ancestors ${ancestors}`,
  ].join('; ');
  return {
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

const SCRIPT_HEADERS = {
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

const PageParams = Strict({ sessionId: Ascii(1, 64) });
const LegacyParams = Strict({ version: VersionParam });
/** Whatever the merchant's page adds (?checkoutVersion=1.0.0, a cache buster): read by the page's script, if at all. */
const AnyQuery = Type.Object({}, { additionalProperties: true });

const hostedCheckoutPages: FastifyPluginAsyncTypebox = async (app) => {
  const page = loadPage('pay', WEB);
  const ownWindow = pageHeaders(page, "'none'");
  const framed = pageHeaders(page, 'http: https:');
  const modern = checkoutScript(null);

  app.get('/static/checkout/checkout.min.js', { schema: { hide: true, querystring: AnyQuery } }, async (_request, reply) =>
    reply.headers(SCRIPT_HEADERS).type('application/javascript; charset=utf-8').send(modern));

  app.get('/checkout/version/:version/checkout.js', { schema: { hide: true, params: LegacyParams, querystring: AnyQuery } }, async (request, reply) => {
    const version = Number(request.params.version);
    checkVersion(request.params.version);
    if (version > LAST_LEGACY_CHECKOUT_VERSION) {
      throw new InvalidRequest(`Value '${version}' is invalid. From version 63 the library is /static/checkout/checkout.min.js`, 'version');
    }
    return reply.headers(SCRIPT_HEADERS).type('application/javascript; charset=utf-8').send(checkoutScript(version));
  });

  // The challenge's end on the embedded page: a frame in the embedded page, itself in the merchant's.
  const over = read('challenge-over.html');
  const overHeaders = pageHeaders(over, 'http: https:');
  app.get('/checkout/entry/:sessionId/return', { schema: { hide: true, params: PageParams, querystring: AnyQuery } }, async (_request, reply) =>
    reply.headers(overHeaders).type('text/html; charset=utf-8').send(over));

  for (const [path, headers] of [['pay', ownWindow], ['entry', framed], ['receipt', ownWindow]] as const) {
    app.get(`/checkout/${path}/:sessionId`, { schema: { hide: true, params: PageParams, querystring: AnyQuery } }, async (_request, reply) =>
      reply.headers(headers).type('text/html; charset=utf-8').send(page));
  }
};

export default hostedCheckoutPages;
