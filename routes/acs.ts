// The 3-D Secure emulator's pages, where Authenticate Payer's HTML sends the payer's browser (the
// test environment's ACS, at the same paths): the ACS method call (an empty page), the challenge
// page (web/acs-challenge.html: pick an outcome or type the one-time code) and its answer, the
// page that posts the result back to the merchant's redirectResponseUrl. No credentials: the
// creq's 3DS server transaction id, known only to the browser the merchant sent, opens the
// challenge. Forms in, HTML out; the pages may be framed (the merchant's iframe#challengeFrame).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PROJECT_ROOT } from '../config.js';
import { InvalidRequest } from '../domain/errors.js';
import { CHALLENGE_CODE } from '../domain/order/authentication-cards.js';
import { renderError } from '../plugins/errors.js';
import { escapeHtml } from '../services/order/authentication-html.js';
import { answerChallenge, challengeView, type ChallengeForm, type ChallengeView } from '../services/order/challenge.js';
import { Opt, Str, Strict } from '../schemas/common.js';
import { ModernId } from '../schemas/transaction.js';

const PROMPT = '/acs/mastercard/v2/prompt/:merchantId/:orderId/:transactionId';
const Params = Strict({ merchantId: Str(1, 40, 'the merchant id'), orderId: ModernId('order id'), transactionId: ModernId('transaction id') });
const Form = Type.Object({
  creq: Opt(Str(1, 4096)), selectAuthResult: Opt(Str(1, 64)), otp: Opt(Str(0, 12)), cancel: Opt(Str(0, 8)),
}, { additionalProperties: true });

/** The scheme's name for its 3-D Secure program, as the bank's page shows it. */
const PROGRAMS: Readonly<Record<string, string>> = {
  MASTERCARD: 'Mastercard ID Check', MAESTRO: 'Mastercard ID Check', VISA: 'Visa Secure', AMEX: 'American Express SafeKey',
  JCB: 'J/Secure', DISCOVER: 'ProtectBuy', DINERS_CLUB: 'ProtectBuy', CHINA_UNIONPAY: 'UnionPay 3-D Secure',
};

const html = (title: string, text: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>`
  + `<body style="font-family:sans-serif;max-width:480px;margin:24px auto;padding:0 16px"><h1 style="font-size:20px">${title}</h1><p>${escapeHtml(text)}</p></body></html>`;

const acs: FastifyPluginAsyncTypebox = async (app) => {
  const template = readFileSync(join(PROJECT_ROOT, 'web', 'acs-challenge.html'), 'utf8');
  const page = (view: ChallengeView, action: string) => template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => escapeHtml(({
    scheme: PROGRAMS[view.brand] ?? '3-D Secure', merchant: view.merchantId, amount: view.amount, currency: view.currency,
    brand: view.brand.replace(/_/g, ' '), last4: view.cardLast4, action, creq: view.creq, code: CHALLENGE_CODE,
  } as Record<string, string>)[name] ?? ''));

  // The browser posts forms; a field given twice counts once (its last value).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 16_384 }, (_request, text, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(text))));
  });
  // A refused request is a page for the payer, not a JSON body.
  app.setErrorHandler((error: Error, request, reply) => {
    if (!(error instanceof InvalidRequest) && (error as { validation?: unknown }).validation === undefined) return renderError(error, request, reply);
    return reply.code(400).type('text/html; charset=utf-8').header('cache-control', 'no-store')
      .send(html('This authentication cannot go on', `${error.message}. Return to the merchant and start the payment again.`));
  });

  app.post('/acs/mastercard/v2/method', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send('<!DOCTYPE html><html><head><title>3DS Method</title></head><body></body></html>'));

  app.post(PROMPT, { schema: { hide: true, params: Params, body: Form } }, async (request, reply) => {
    const view = await challengeView(app.gateway, request.params, request.body.creq);
    const action = `${request.url.split('?')[0] ?? ''}/result`;
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(view.answered ?? page(view, action));
  });

  app.post(`${PROMPT}/result`, { schema: { hide: true, params: Params, body: Form } }, async (request, reply) => {
    // No merchant credentials here: the event is the merchant's whose order the creq opened.
    const meta = { ...request.meta(), merchantId: request.params.merchantId };
    const answer = await answerChallenge(app.gateway, request.params, request.body as ChallengeForm, meta);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(answer);
  });
};

export default acs;
