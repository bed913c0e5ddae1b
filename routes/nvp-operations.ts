// The operations the NVP protocol serves (routes/nvp.ts), each the REST operation of the same
// name: the same parameter and body schemas, the same version rule, the same service call and
// answer. What an entry says of NVP: which fields are the REST path's parameters (`order.id` is
// {orderId}), and that a transaction keeps `apiOperation` in its body as REST's does.
import type { TSchema } from '@sinclair/typebox';
import type { MerchantProfile } from '../merchants.js';
import type { RequestMeta } from '../services/context.js';
import type { Gateway } from '../services/gateway.js';
import { orderApiRequest, retrieveOrderApi, retrieveOrderTransaction } from '../services/order/order-api.js';
import { handleOrderCommand } from '../services/order/order-service.js';
import { retrieveToken } from '../services/queries/retrieval.js';
import { createSession, retrieveSession, updateSession } from '../services/session/sessions.js';
import { initiateCheckout } from '../services/session/checkout-initiate.js';
import { createToken, deleteToken, tokenize, type AuthMethod } from '../services/token/tokens.js';
import { CheckoutBody } from '../schemas/checkout.js';
import { Opt, Str, Strict } from '../schemas/common.js';
import { CreateSessionBody, SessionBody, SessionIdParams, SessionParams } from '../schemas/session.js';
import { RetrieveTokenParams, TokenBody, TokenizeParams, TokenParams } from '../schemas/token.js';
import { OrderApiParams, TransactionApiParams, TransactionBody } from '../schemas/transaction.js';
import { RETRIEVE_ORDER, SESSIONS } from '../schemas/versions.js';
import { transactionMeta } from './transactions.js';
import { Inquiry, inquiryAnswer, PaymentOptionsParams } from './payment-options.js';

export interface NvpCall {
  gateway: Gateway; merchant: MerchantProfile; params: Record<string, string>; body: unknown; meta: RequestMeta; authMethod: AuthMethod;
  /** The gateway's address as the client reached it. */
  origin: string;
}

export interface NvpOperation {
  /** NVP field → the REST path parameter it is. */
  params: Readonly<Record<string, string>>;
  paramsSchema: TSchema;
  bodySchema: TSchema;
  /** The body keeps apiOperation (the order API's transactions, Initiate Checkout). */
  keepsApiOperation?: boolean;
  /** The operation's name for the version rule (schemas/versions.ts), if it has a first version. */
  versionRule?: string;
  status: 200 | 201;
  run(call: NvpCall): Promise<unknown>;
}

/** A retrieval takes no body: correlationId at most. */
const NoBody = Strict({ correlationId: Opt(Str(1, 100)) });
const ORDER = { 'order.id': 'orderId' } as const;
const TRANSACTION = { 'order.id': 'orderId', 'transaction.id': 'transactionId' } as const;
const SESSION = { 'session.id': 'sessionId' } as const;
const TOKEN = { token: 'tokenid' } as const;

const transaction = (name: string): NvpOperation => ({
  params: TRANSACTION, paramsSchema: TransactionApiParams, bodySchema: TransactionBody, keepsApiOperation: true, versionRule: name, status: 201,
  run: async ({ gateway, merchant, params, body, meta, origin }) => {
    const fields = body as TransactionBody;
    const transaction = transactionMeta(merchant, meta, params.version ?? '100', fields);
    return handleOrderCommand(gateway, await orderApiRequest(gateway, merchant, params as TransactionApiParams, fields, origin), transaction);
  },
});

const checkout = (): NvpOperation => ({
  params: {}, paramsSchema: SessionParams, bodySchema: CheckoutBody, keepsApiOperation: true, versionRule: SESSIONS, status: 201,
  run: ({ gateway, merchant, params, body, meta, origin }) => initiateCheckout(gateway, merchant, params.version ?? '100', body as CheckoutBody, meta, origin),
});

export const NVP_OPERATIONS: Readonly<Record<string, NvpOperation>> = {
  PAY: transaction('PAY'),
  AUTHORIZE: transaction('AUTHORIZE'),
  CAPTURE: transaction('CAPTURE'),
  REFUND: transaction('REFUND'),
  VOID: transaction('VOID'),
  VERIFY: transaction('VERIFY'),
  INITIATE_AUTHENTICATION: transaction('INITIATE_AUTHENTICATION'),
  AUTHENTICATE_PAYER: transaction('AUTHENTICATE_PAYER'),
  RETRIEVE_TRANSACTION: {
    params: TRANSACTION, paramsSchema: TransactionApiParams, bodySchema: NoBody, status: 200,
    run: ({ gateway, merchant, params, origin }) => retrieveOrderTransaction(gateway, merchant, params as TransactionApiParams, origin),
  },
  RETRIEVE_ORDER: {
    params: ORDER, paramsSchema: OrderApiParams, bodySchema: NoBody, versionRule: RETRIEVE_ORDER, status: 200,
    run: ({ gateway, merchant, params, origin }) => retrieveOrderApi(gateway, merchant, params as OrderApiParams, origin),
  },
  CREATE_SESSION: {
    params: {}, paramsSchema: SessionParams, bodySchema: CreateSessionBody, versionRule: SESSIONS, status: 201,
    run: ({ gateway, merchant, body, meta }) => createSession(gateway, merchant, body as CreateSessionBody, meta),
  },
  UPDATE_SESSION: {
    params: SESSION, paramsSchema: SessionIdParams, bodySchema: SessionBody, versionRule: SESSIONS, status: 200,
    run: ({ gateway, merchant, params, body, meta }) => updateSession(gateway, merchant, params.sessionId ?? '', body as SessionBody, meta, params.version),
  },
  RETRIEVE_SESSION: {
    params: SESSION, paramsSchema: SessionIdParams, bodySchema: NoBody, versionRule: SESSIONS, status: 200,
    run: ({ gateway, merchant, params }) => retrieveSession(gateway, merchant, params.sessionId ?? '', params.version),
  },
  // Initiate Checkout (Create Checkout Session before version 63): REST's POST .../session with
  // that apiOperation, which its body keeps (the service checks it against the version).
  INITIATE_CHECKOUT: checkout(),
  CREATE_CHECKOUT_SESSION: checkout(),
  PAYMENT_OPTIONS_INQUIRY: {
    params: {}, paramsSchema: PaymentOptionsParams, bodySchema: Inquiry, keepsApiOperation: true, status: 200,
    run: async ({ merchant, params, body }) => inquiryAnswer(merchant.id, params.version ?? '100', (body as { correlationId?: string }).correlationId),
  },
  // Create or Update Token: with `token`, the token of that id (REST's PUT .../token/{tokenid}:
  // Tokenize); without, a token the gateway generates (POST .../token). routes/nvp.ts picks.
  TOKENIZE: {
    params: TOKEN, paramsSchema: TokenizeParams, bodySchema: TokenBody, status: 201,
    run: ({ gateway, merchant, params, body, meta, authMethod }) => tokenize(gateway, merchant, params.tokenid ?? '', body as TokenBody, meta, authMethod),
  },
  RETRIEVE_TOKEN: {
    params: TOKEN, paramsSchema: RetrieveTokenParams, bodySchema: NoBody, status: 200,
    run: ({ gateway, merchant, params }) => retrieveToken(gateway, merchant, params.tokenid ?? ''),
  },
  DELETE_TOKEN: {
    params: TOKEN, paramsSchema: RetrieveTokenParams, bodySchema: NoBody, status: 200,
    run: ({ gateway, merchant, params, meta }) => deleteToken(gateway, merchant, params.tokenid ?? '', meta),
  },
};

/** TOKENIZE without a `token` field: the gateway generates the id. */
export const TOKENIZE_GENERATED: NvpOperation = {
  params: {}, paramsSchema: TokenParams, bodySchema: TokenBody, status: 201,
  run: ({ gateway, merchant, body, meta, authMethod }) => createToken(gateway, merchant, body as TokenBody, meta, authMethod),
};

/** The REST path parameters as the NVP fields they are, for error.field. */
export const NVP_FIELD_OF_PARAM: Readonly<Record<string, string>> = {
  orderId: 'order.id', transactionId: 'transaction.id', sessionId: 'session.id', tokenid: 'token', merchantId: 'merchant',
};
