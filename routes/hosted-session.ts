// The browser half of Hosted Session, on the real gateway's path: GET
// /form/version/{n}/merchant/{m}/session.js, the Session JavaScript library (window.PaymentSession,
// web/hosted/session-*.js), and what it puts in the merchant's page: a frame per hosted field
// (.../role/{role}/inputField.do, web/hosted/field.html) and one hidden frame that updates the
// session (.../controller.do, web/hosted/controller.html), which sends the fields' values to PUT
// .../session/{sessionId} here. That request stores the card as Update Session does
// (services/session/hosted-update.ts); the card never passes through the merchant's page.
// No credentials: the session id, drawn by the gateway and given to the page by the merchant's
// server, is what the page holds (as on the real gateway). Headers:
//   - session.js: a script any page may load (Access-Control-Allow-Origin: *, for pages that load
//     it with crossorigin), served as JavaScript, never sniffed;
//   - the frames: embeddable by any merchant's page over http or https (frame-ancestors), running
//     only their own inline code (its SHA-256 in the Content-Security-Policy); the fields' frame
//     may connect nowhere, the controller only to the gateway itself;
//   - the update: refused when the browser says it comes from another site or origin than the
//     gateway's own frames (Sec-Fetch-Site), never cached.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PROJECT_ROOT } from '../config.js';
import { InvalidRequest } from '../domain/errors.js';
import { inlineHashes } from '../lib/inline-hashes.js';
import type { MerchantProfile } from '../merchants.js';
import { errorBody } from '../plugins/errors.js';
import { FieldParams, FormParams, FormSessionBody, FormSessionParams, FrameQuery } from '../schemas/hosted-session.js';
import { checkVersion, SESSIONS } from '../schemas/versions.js';
import { timedOut, updateSessionFromForm } from '../services/session/hosted-update.js';

const WEB = join(PROJECT_ROOT, 'web', 'hosted');
const read = (name: string) => readFileSync(join(WEB, name), 'utf8');

/** The library: both parts in one function of the path's version and merchant. */
export function sessionScript(version: string, merchantId: string): string {
  const config = JSON.stringify({ version, merchant: merchantId }).replace(/</g, '\\u003c');
  return `(function (CONFIG) {\n${read('session-frames.js')}\n${read('session-api.js')}\n})(${config});\n`;
}

/** The headers of a frame: its own inline code only, embeddable by merchants' pages. */
export function frameHeaders(page: string, connect: "'none'" | "'self'"): Record<string, string> {
  const styles = inlineHashes([page], 'style');
  const policy = [
    "default-src 'none'", `script-src ${inlineHashes([page], 'script').join(' ')}`, `style-src ${styles.length > 0 ? styles.join(' ') : "'none'"}`,
    `connect-src ${connect}`, "img-src 'none'", "form-action 'none'", "base-uri 'none'", 'frame-ancestors http: https:',
  ].join('; ');
  return {
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  };
}

const SCRIPT_HEADERS = {
  'access-control-allow-origin': '*',
  'cross-origin-resource-policy': 'cross-origin',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

const hostedSession: FastifyPluginAsyncTypebox = async (app) => {
  const field = read('field.html');
  const controller = read('controller.html');
  const fieldHeaders = frameHeaders(field, "'none'");
  const controllerHeaders = frameHeaders(controller, "'self'");

  /** The merchant the path names, on a version that has sessions. */
  const merchantOf = (params: { version: string; merchantId: string }): MerchantProfile => {
    checkVersion(params.version, SESSIONS);
    const merchant = app.gateway.merchants.get(params.merchantId);
    if (!merchant) throw new InvalidRequest(`Value '${params.merchantId}' is invalid. No such merchant`, 'merchantId');
    return merchant;
  };
  const html = (reply: FastifyReply, headers: Record<string, string>, page: string) => reply.headers(headers).type('text/html; charset=utf-8').send(page);

  app.get('/form/version/:version/merchant/:merchantId/session.js', {
    schema: { hide: true, summary: 'Hosted Session: session.js', params: FormParams },
  }, async (request, reply) => {
    const merchant = merchantOf(request.params);
    return reply.headers(SCRIPT_HEADERS).type('application/javascript; charset=utf-8').send(sessionScript(request.params.version, merchant.id));
  });

  app.get('/form/version/:version/merchant/:merchantId/role/:role/inputField.do', {
    schema: { hide: true, summary: 'Hosted Session: a hosted field', params: FieldParams, querystring: FrameQuery },
  }, async (request, reply) => {
    merchantOf(request.params);
    return html(reply, fieldHeaders, field);
  });

  app.get('/form/version/:version/merchant/:merchantId/controller.do', {
    schema: { hide: true, summary: 'Hosted Session: the session frame', params: FormParams, querystring: FrameQuery },
  }, async (request, reply) => {
    merchantOf(request.params);
    return html(reply, controllerHeaders, controller);
  });

  app.put('/form/version/:version/merchant/:merchantId/session/:sessionId', {
    schema: { hide: true, summary: 'Hosted Session: update from the hosted fields', params: FormSessionParams, body: FormSessionBody },
  }, async (request, reply) => {
    if (fromElsewhere(request)) {
      const explanation = 'Only the gateway\'s own hosted fields update a session from a browser';
      return reply.code(403).send(errorBody('INVALID_REQUEST', { explanation }));
    }
    const { version, merchantId, sessionId } = request.params;
    checkVersion(version, SESSIONS);
    const merchant = app.gateway.merchants.get(merchantId);
    const answer = merchant
      ? await updateSessionFromForm(app.gateway, merchant, sessionId, request.body.card, { ...request.meta(), merchantId: merchant.id }, version)
      : timedOut(sessionId, version);
    return reply.code(answer.httpStatus).header('cache-control', 'no-store').send(answer.payload);
  });
};

/** A browser's request from another origin than the gateway's (its frames'): Sec-Fetch-Site says so. */
export function fromElsewhere(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  return typeof site === 'string' && site !== 'same-origin';
}

export default hostedSession;
