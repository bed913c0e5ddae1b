// Payment Options Inquiry (.../version/{version}/merchant/{merchantId}/paymentOptionsInquiry): the
// payment options the merchant's profile has. The reference documents it as a GET up to the
// versions read (12 to 52, the request fields as URL parameters) and Mastercard's Magento module
// sends it as a POST with a JSON body since its move to version 73: both are taken on every
// version, and NVP's apiOperation PAYMENT_OPTIONS_INQUIRY is the POST (routes/nvp-operations.ts). Authenticated as the order API is (a wrong password: 401, the error body clients read
// to check a merchant's credentials). The answer: `result` SUCCESS and
// `paymentTypes.card.cardTypes[].cardType`, each card brand the test acquirer takes (the module
// keeps them as its card list), `correlationId` as sent. Other request fields (order.currency,
// sourceOfFunds.provided.card.prefix, ...) are taken and not used: every brand takes every currency.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CARD_BRANDS } from '../domain/card.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';
import { valuesProblem } from '../plugins/request-values.js';
import { Opt, Str, Strict, StringEnum } from '../schemas/common.js';
import { MerchantIdParam, VersionParam } from '../schemas/pay.js';
import { documented, errorResponses } from '../schemas/responses.js';
import { checkVersion } from '../schemas/versions.js';
import { noBodyAsEmpty } from './no-body.js';

const PATH = '/api/rest/version/:version/merchant/:merchantId/paymentOptionsInquiry';
export const PaymentOptionsParams = Strict({ version: VersionParam, merchantId: MerchantIdParam });
const open = { additionalProperties: true } as const;
export const Inquiry = Type.Object({
  apiOperation: Opt(StringEnum(['PAYMENT_OPTIONS_INQUIRY'] as const)),
  correlationId: Opt(Str(1, 100)),
}, open);
const Answer = Type.Object({
  correlationId: Opt(Type.String()),
  merchant: Type.String(),
  paymentTypes: Type.Object({ card: Type.Object({ cardTypes: Type.Array(Type.Object({ cardType: StringEnum(CARD_BRANDS) })) }) }),
  result: StringEnum(['SUCCESS'] as const),
});

const CARD_TYPES = CARD_BRANDS.map((cardType) => ({ cardType }));

/** The answer to the merchant's inquiry, in REST and NVP (routes/nvp-operations.ts). */
export function inquiryAnswer(merchantId: string, version: string, correlationId: string | undefined) {
  checkVersion(version);
  return {
    ...(correlationId !== undefined ? { correlationId } : {}),
    merchant: merchantId,
    paymentTypes: { card: { cardTypes: CARD_TYPES } },
    result: 'SUCCESS' as const,
  };
}

const common = {
  summary: 'Payment Options Inquiry',
  description: 'The card types the merchant can take. POST with a JSON body (as clients of version 73 on send it) or GET with the fields as URL parameters (as the reference documents it up to version 52).',
  tags: ['order'],
  security: [{ basicAuth: [] }],
  params: PaymentOptionsParams,
  response: { 200: documented(Answer), ...errorResponses },
};

const paymentOptions: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'order', 'merchantId');
  app.post(PATH, {
    schema: { ...common, body: Opt(Inquiry) },
    // Mastercard's WooCommerce module checks a merchant's credentials with a POST without a body
    // (and a JSON content type): none is taken as {}, as Create Session takes it.
    preValidation: noBodyAsEmpty,
  }, async (request) => inquiryAnswer(merchantOf(request).id, request.params.version, request.body?.correlationId));
  // The GET's URL parameters are the POST's body members: a card number among them is refused as
  // it is there (correlationId is quoted in the answer), where the app's hook checks a query for NUL only.
  app.get(PATH, {
    schema: { ...common, querystring: Inquiry },
    preValidation: (request, _reply, done) => done(valuesProblem(undefined, undefined, request.query, Inquiry)),
  }, async (request) => inquiryAnswer(merchantOf(request).id, request.params.version, request.query.correlationId));
};

export default paymentOptions;
