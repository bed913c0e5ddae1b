// The NVP protocol's forms as the API reference describes them (routes/nvp.ts documents its routes
// with these; the route reads and checks its fields itself, through the REST operations' schemas,
// so these are never compiled as validators). A request is a form of dotted fields, an answer the
// same pairs: each a form field here, its name the dotted name.
import { Type, type TSchema } from '@sinclair/typebox';
import { StringEnum } from './common.js';

/** The media type of NVP requests and answers. */
export const NVP_MEDIA_TYPE = 'application/x-www-form-urlencoded';

const S = (description: string) => Type.String({ description });
const O = Type.Optional;

/** The request form: the protocol's fields, the path parameters of REST as fields, then the body's. */
export const nvpRequestForm = (operations: readonly string[]) => Type.Object({
  apiOperation: Type.Unsafe<string>({ type: 'string', enum: [...operations], description: 'the operation: each is the REST operation of the same name (TOKENIZE with `token`: Tokenize, without: Create or Update Token)' }),
  merchant: S('the merchant id (REST: {merchantId} of the path)'),
  apiUsername: O(S('merchant.<merchantId> (or Basic authentication, or a client certificate)')),
  apiPassword: O(S("the merchant's API password")),
  'order.id': O(S('the transactions, RETRIEVE_ORDER and RETRIEVE_TRANSACTION (REST: {orderId})')),
  'transaction.id': O(S('the transactions and RETRIEVE_TRANSACTION (REST: {transactionId})')),
  'session.id': O(S('UPDATE_SESSION and RETRIEVE_SESSION (REST: {sessionId}); in other operations, the session whose fields the request takes')),
  token: O(S('TOKENIZE of that id, RETRIEVE_TOKEN, DELETE_TOKEN (REST: {tokenid})')),
}, {
  additionalProperties: S("every field of the REST operation's body, dotted: order.amount, order.currency, sourceOfFunds.token, sourceOfFunds.provided.card.number, ...; list items by their index from 0, without a gap: interaction.tokens[0], interaction.tokens[1], order.item[0].name"),
  description: 'A form of dotted fields (application/x-www-form-urlencoded; read as one whatever the Content-Type says)',
});

/** A processed request's answer: the REST answer's members as pairs. */
export const NvpAnswer = Type.Object({
  result: S('SUCCESS, FAILURE, PENDING or UNKNOWN, as in the REST answer'),
}, {
  additionalProperties: S("every member of the REST operation's answer, dotted; list items as transaction[0].id"),
  description: "The REST operation's answer as pairs: dotted names, sorted, values form-encoded",
});

/** The gateway's error body as pairs (a component of the document: plugins/openapi.ts adds it). */
export const NvpErrorAnswer = Type.Object({
  'error.cause': StringEnum(['INVALID_REQUEST', 'REQUEST_REJECTED', 'SERVER_BUSY', 'SERVER_FAILED'] as const),
  'error.explanation': O(S('only with INVALID_REQUEST or SERVER_BUSY')),
  'error.field': O(S('the field at fault, as the NVP field it is (order.id, not orderId)')),
  'error.supportCode': O(S('only with SERVER_FAILED or REQUEST_REJECTED: quote it to support (it is the request id)')),
  'error.validationType': O(StringEnum(['INVALID', 'MISSING', 'UNSUPPORTED'] as const)),
  result: Type.Literal('ERROR'),
}, { $id: 'NvpErrorAnswer', additionalProperties: false, description: "The gateway's error body as pairs" });

const error = (description: string) => Type.Ref(NvpErrorAnswer, { description });

/** The error answers of an NVP operation, by status (REST's statuses). */
export const nvpErrorResponses = (): Record<number, TSchema> => ({
  400: error('INVALID_REQUEST: a field or the version is wrong; error.field names it'),
  401: error('INVALID_REQUEST: missing or wrong credentials, or credentials of another merchant than `merchant`'),
  429: error('REQUEST_REJECTED: the credential is locked after too many failed authentications (with Retry-After)'),
  500: error('SERVER_FAILED, with a supportCode'),
  503: error('SERVER_BUSY: repeat the identical request later'),
});
