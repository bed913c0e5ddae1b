// Response bodies: the OpenAPI document, and the serializers compiled from them (plugins/openapi.ts,
// keys sorted). A compiled serializer writes only the properties its schema declares, so each
// schema here declares every member its builder can produce (services/order/responses.ts,
// services/token/token-responses.ts, services/queries/retrieval.ts); test/http/serializer.test.ts checks it.
import { Type, type TSchema } from '@sinclair/typebox';

const S = (description?: string) => Type.String(description ? { description } : {});
const N = (description?: string) => Type.Number(description ? { description } : {});
const O = Type.Optional;
const Obj = Type.Object;

export const ErrorBody = Obj({
  error: Obj({
    cause: Type.Union([Type.Literal('INVALID_REQUEST'), Type.Literal('REQUEST_REJECTED'), Type.Literal('SERVER_BUSY'), Type.Literal('SERVER_FAILED')]),
    explanation: O(S('only with INVALID_REQUEST or SERVER_BUSY')),
    field: O(S('the dotted request path or URL parameter at fault (field-level INVALID_REQUEST)')),
    supportCode: O(S('only with SERVER_FAILED or REQUEST_REJECTED: quote it to support (it is the request id)')),
    validationType: O(Type.Union([Type.Literal('INVALID'), Type.Literal('MISSING'), Type.Literal('UNSUPPORTED')])),
  }),
  result: Type.Literal('ERROR'),
}, { $id: 'ErrorBody', description: "The gateway's error body: compact JSON, keys sorted" });

const Expiry = Obj({ month: S('1-12'), year: S('2 digits') });
const Code = Obj({ acquirerCode: O(S()), gatewayCode: S() });

const Holder = Obj({ firstName: O(S()), fullName: O(S()), lastName: O(S()), middleName: O(S()), title: O(S()) }, { description: 'echo of the request card.holder' });

export const PayResponse = Obj({
  card: Obj({ expiry: O(Expiry), holder: O(Holder), number: S('masked 6.4, or the merchant\'s stricter 0.4 (cardNumberMasking)'), token: O(S()), type: S() }),
  correlationId: O(S('echo of the request value')),
  merchant: S(),
  order: Obj({
    amount: O(N()), creationTime: O(S()), currency: O(S()), id: Type.Integer({ description: 'written exactly as sent (up to 16 digits)' }),
    lastUpdatedTime: O(S()), reference: O(S()), status: O(S()),
    totalAuthorizedAmount: N(), totalCapturedAmount: N(), totalRefundedAmount: N(),
  }),
  response: Obj({
    '3dsecure': O(Obj({ gatewayCode: S() })),
    acquirerCode: O(S()), acquirerMessage: O(S()),
    avs: O(Code), cardSecurityCode: O(Code),
    gatewayCode: S('APPROVED, DECLINED, ... (27 values)'),
    risk: O(Obj({ gatewayCode: S(), reversalTransactionResult: O(S()), reviewResult: O(S()) })),
  }),
  result: Type.Union([Type.Literal('SUCCESS'), Type.Literal('FAILURE'), Type.Literal('PENDING'), Type.Literal('UNKNOWN')]),
  sourceOfFunds: O(Obj({
    provided: Obj({ card: Obj({ brand: S(), expiry: Expiry, fundingMethod: S(), number: S(), scheme: S() }) }),
    token: S(), type: Type.Literal('CARD'),
  })),
  timeOfRecord: O(S()),
  transaction: Obj({
    acquirer: Obj({ batch: O(N()), date: O(S()), id: S(), merchantId: O(S()), settlementDate: O(S()), timeZone: O(S()), transactionId: O(S()) }),
    amount: N(), authorizationCode: O(S('only when approved')), batch: O(N()), cashAdvance: O(Type.Boolean()), currency: S(),
    frequency: O(S()), id: S(), receipt: O(S()), reference: O(S()), source: O(S()), stan: O(S()),
    tax: O(Obj({ local: Obj({ amount: O(N()), exempt: O(Type.Boolean()), reference: O(S()) }) })),
    terminal: O(S()), type: Type.Literal('PAYMENT'),
  }),
}, { description: 'Pay with token: the recorded outcome (also for identical repeats)' });

const Address = (extra: { company?: boolean; stateProvinceCode?: boolean }) => Obj({
  city: O(S()),
  ...(extra.company ? { company: O(S()) } : {}),
  country: O(S()), postcodeZip: O(S()), stateProvince: O(S()),
  ...(extra.stateProvinceCode ? { stateProvinceCode: O(S()) } : {}),
  street: O(S('street2 of the request is merged into it (a space between), at most 100 characters')),
});

export const TokenResponse = Obj({
  billing: O(Obj({ address: O(Address({ company: true, stateProvinceCode: true })) }, { description: 'echo of the request' })),
  correlationId: O(S()),
  customer: O(Obj({ email: O(S()), firstName: O(S()), lastName: O(S()), mobilePhone: O(S()), phone: O(S()), taxRegistrationId: O(S()) }, { description: 'echo of the request' })),
  device: O(Obj({ ipAddress: O(S()) }, { description: 'echo of the request' })),
  referenceOrderId: O(S()),
  shipping: O(Obj({
    address: O(Address({})), contact: O(Obj({ firstName: O(S()), lastName: O(S()) })), origin: O(Obj({ postcodeZip: O(S()) })),
  }, { description: 'only for wallet billing-agreement tokens' })),
  repositoryId: S(),
  response: O(Obj({ gatewayCode: S('BASIC_VERIFICATION_SUCCESSFUL, EXTERNAL_VERIFICATION_*, NO_VERIFICATION_PERFORMED, SCHEME_TOKENIZATION_*') })),
  result: S('SUCCESS, FAILURE, PENDING, UNKNOWN'),
  schemeToken: O(Obj({ provider: O(S()), status: S('ACTIVE, DEACTIVATED, INELIGIBLE, PROVISIONING, SUSPENDED, TOKENIZATION_UNAVAILABLE'), statusTime: O(S('YYYY-MM-DDThh:mm:ss.SSSZ')), tokenIdentifier: O(S()) })),
  schemeTokenProvisioningMode: O(S()),
  sourceOfFunds: Obj({
    provided: Obj({
      card: O(Obj({ brand: S(), deviceSpecificNumber: O(S()), expiry: S('MMYY'), fundingMethod: S(), nameOnCard: O(S()), number: S('masked 6.4 (or the merchant\'s stricter masking); clear only with UNMASK over certificate authentication'), scheme: S() })),
      ach: O(Obj({ accountIdentifier: O(S()), accountType: O(S()), bankAccountHolder: O(S()), bankAccountNumber: O(S('masked')), routingNumber: O(S()), secCode: O(S()) })),
      directDebitCanada: O(Obj({ accountType: O(S()), bankAccountHolder: S(), bankAccountNumber: S('masked'), financialInstitutionNumber: S(), transitNumber: S() })),
      wallet: O(Obj({ accountEmail: O(S()), accountHolder: O(S()), billingAgreement: O(Obj({ cardinality: S(), description: O(S()), id: S(), name: O(S()) })), payerId: O(S()) })),
    }),
    type: S('ACH, CARD, DIRECT_DEBIT_CANADA, WALLET'),
  }),
  status: O(S('VALID; absent when result is FAILURE (nothing stored)')), token: O(S('absent when result is FAILURE')),
  usage: O(Obj({ lastUpdated: S(), lastUpdatedBy: S(), lastUsed: O(S()) }, { description: 'absent when result is FAILURE' })),
  verificationStrategy: O(S()),
}, { description: 'The stored token, account numbers masked' });

/** Error responses of a gateway operation. */
export const errorResponses = {
  400: Type.Ref(ErrorBody, { description: 'INVALID_REQUEST: a field, URL parameter or the JSON is wrong' }),
  401: Type.Ref(ErrorBody, { description: 'INVALID_REQUEST: missing or wrong credentials (with WWW-Authenticate: Basic realm="tokengate")' }),
  404: Type.Ref(ErrorBody, { description: 'INVALID_REQUEST: no such operation' }),
  500: Type.Ref(ErrorBody, { description: 'SERVER_FAILED, with a supportCode' }),
  503: Type.Ref(ErrorBody, { description: 'SERVER_BUSY: repeat the identical request later' }),
};

/**
 * A response schema that documents and serializes without typing the handler's reply: the
 * response builders in services/order/responses.ts are the source of truth, the schema follows them.
 */
export const documented = <T extends TSchema>(schema: T) => Type.Unsafe<unknown>(schema);
