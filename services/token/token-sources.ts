// Where the details of a token request come from (spec: "Card details may combine explicit card
// data, a session and a token. Precedence: explicit data over session over token"), for every
// source of funds: CARD (provided, session, sourceOfFunds.token, referenceOrderId, push
// provisioning), ACH, DIRECT_DEBIT_CANADA, WALLET. The result is in clear, for this request only;
// nothing here is stored. Every refusal is a 400 naming the field.
import { isDeviceAccountNumber } from '../../domain/token/accounts.js';
import { luhnValid } from '../../domain/card.js';
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type CardExpiry, type StoredWallet, type TokenOrigin } from '../../domain/events.js';
import { pushProvisionedCard } from '../../domain/token/scheme-token-simulator.js';
import { EXPIRY_TABLE, expiryKey, isExpired } from '../../domain/order/test-acquirer.js';
import type { ValidToken } from '../../domain/token/token.js';
import type { MerchantProfile } from '../../merchants.js';
import type { TokenBody } from '../../schemas/token.js';
import { foldSession, foldTokenState, readOwnStream } from '../aggregates.js';
import type { Gateway } from '../gateway.js';
import { foldOrderStream } from '../order/order-stream.js';
import { withSession } from '../session/session-request.js';

type SourceOfFunds = NonNullable<TokenBody['sourceOfFunds']>;
type Provided = NonNullable<SourceOfFunds['provided']>;
/** A token request with its source of funds (sent, or held by the session it names). */
type Sourced = TokenBody & { sourceOfFunds: SourceOfFunds };
export type AchDetails = Required<NonNullable<Provided['ach']>>;
export type DirectDebitCanadaDetails = NonNullable<Provided['directDebitCanada']>;

export interface CardDetails { type: 'CARD'; number: string; expiry: CardExpiry; nameOnCard?: string; securityCode?: string }
export type SourceDetails =
  | CardDetails
  | { type: 'ACH'; ach: AchDetails }
  | { type: 'DIRECT_DEBIT_CANADA'; directDebitCanada: DirectDebitCanadaDetails }
  | { type: 'WALLET'; wallet: StoredWallet };

export interface Resolution {
  details: SourceDetails;
  /** The token named in sourceOfFunds.token: this request updates it. */
  target?: ValidToken;
  origin?: TokenOrigin;
  /** The card is a device account number (DPAN): no scheme tokenization (spec rule 5). */
  deviceAccount: boolean;
  pushProvisioned: boolean;
  /** Call once the request is done with the session (its security code is destroyed). */
  sessionUsed?: () => void;
}

const CARD = 'sourceOfFunds.provided.card';
type SourceType = SourceDetails['type'];

const refuse = (field: string, explanation: string, type: 'INVALID' | 'MISSING' | 'UNSUPPORTED' = 'INVALID') => new InvalidRequest(explanation, field, type);
const missing = (field: string) => refuse(field, 'Missing parameter', 'MISSING');

/**
 * The sources of a card exclude each other: referenceOrderId, push provisioning, provided card
 * details, a named token. (Groups of another source type than sourceOfFunds.type are validated
 * but not stored.)
 */
function checkCombination(body: TokenBody, type: SourceType): void {
  const sof = body.sourceOfFunds ?? {};
  if (body.referenceOrderId !== undefined) {
    if (sof.provided?.card !== undefined) throw refuse(CARD, `Unexpected parameter '${CARD}': the card comes from referenceOrderId`, 'UNSUPPORTED');
    if (sof.token !== undefined) throw refuse('referenceOrderId', "Value is invalid. referenceOrderId and sourceOfFunds.token cannot both name the card");
    if (type !== 'CARD') throw refuse('sourceOfFunds.type', 'Value is invalid. referenceOrderId tokenizes a card: sourceOfFunds.type must be CARD');
  }
  if (sof.schemeTokenProvisioningIdentifier !== undefined) {
    const field = 'sourceOfFunds.schemeTokenProvisioningIdentifier';
    if (type !== 'CARD') throw refuse('sourceOfFunds.type', `Value is invalid. With ${field} sourceOfFunds.type must be CARD`);
    if (sof.provided?.card !== undefined) throw refuse(CARD, `Unexpected parameter '${CARD}': with ${field} the card details come from the token service provider`, 'UNSUPPORTED');
    if (body.session?.id !== undefined) throw refuse('session.id', `Unexpected parameter 'session.id': with ${field} the card details come from the token service provider`, 'UNSUPPORTED');
    if (sof.token !== undefined || body.referenceOrderId !== undefined) throw refuse(field, `Value is invalid. ${field} cannot be combined with sourceOfFunds.token or referenceOrderId`);
  }
}

async function targetToken(gateway: Gateway, merchant: MerchantProfile, token: string): Promise<ValidToken> {
  const state = foldTokenState(await readOwnStream(gateway.store, streams.token(merchant.repository.id, token)));
  if (state.status !== 'VALID') throw refuse('sourceOfFunds.token', `Value '${token}' is invalid. No such token in the merchant's token repository`);
  return state;
}

/**
 * The card of the latest successful payment of the merchant's order (spec rule 5): a version 3
 * payment's token, or an order API PAY or AUTHORIZE paid with a token or a session that still
 * holds its card. A card sent in an order API request was never stored (only its mask is), so such
 * an order cannot be tokenized: the answer says so.
 */
async function referencedCard(gateway: Gateway, merchant: MerchantProfile, orderId: string): Promise<{ number: string; expiry: CardExpiry }> {
  const none = () => refuse('referenceOrderId', `Value '${orderId}' is invalid. No successful card payment on this merchant's order`);
  // An id that is a card number never names a stream (it would put the number in its name).
  if (/^[0-9]{13,19}$/.test(orderId) && luhnValid(orderId)) throw refuse('referenceOrderId', 'Value is invalid. The identifier must not be a card number');
  const order = foldOrderStream(await readOwnStream(gateway.store, streams.order(merchant.id, orderId)));
  if (!order.exists) throw none();
  const payments = [
    ...[...order.transactions.values()].filter((p) => p.outcome.result === 'SUCCESS')
      .map((p) => ({ at: p.timeOfRecord, token: { repositoryId: p.repositoryId, token: p.token } as { repositoryId?: string; token?: string }, sessionId: undefined as string | undefined })),
    ...[...(order.modern?.operations.values() ?? [])]
      .filter((t) => t.outcome.result === 'SUCCESS' && (t.transactionType === 'PAYMENT' || t.transactionType === 'AUTHORIZATION'))
      .map((t) => ({ at: t.timeOfRecord, token: { repositoryId: t.source?.repositoryId, token: t.source?.token }, sessionId: t.source?.sessionId })),
  ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  const paid = payments.at(-1);
  if (!paid) throw none();
  const gone = () => refuse('referenceOrderId', `Value '${orderId}' is invalid. The card of that order is no longer stored (its token was deleted or its session expired)`);
  if (paid.token.token !== undefined && paid.token.repositoryId !== undefined) {
    const token = foldTokenState(await readOwnStream(gateway.store, streams.token(paid.token.repositoryId, paid.token.token)));
    const number = token.status === 'VALID' && token.card ? gateway.sealer.open(token.card.numberSealed) : undefined;
    if (token.status !== 'VALID' || !token.card || number === undefined) throw gone();
    return { number, expiry: token.card.expiry };
  }
  if (paid.sessionId !== undefined) {
    const session = foldSession(await readOwnStream(gateway.store, streams.session(merchant.id, paid.sessionId)));
    const card = session.status === 'OPEN' ? session.card : undefined;
    const number = card?.numberSealed ? gateway.sealer.open(card.numberSealed) : undefined;
    if (!card?.expiry || number === undefined) throw gone();
    return { number, expiry: card.expiry };
  }
  throw refuse('referenceOrderId', `Value '${orderId}' is invalid. That order was paid with a card in the request, which is never stored: send the card to tokenize it`);
}

function checkCard(merchant: MerchantProfile, card: Partial<CardDetails>, now: string): CardDetails {
  if (card.number === undefined) throw missing(`${CARD}.number`);
  if (card.expiry === undefined) throw missing(`${CARD}.expiry.month`);
  if (!luhnValid(card.number)) throw refuse(`${CARD}.number`, 'Value is invalid. The card number fails the Luhn check');
  if (merchant.repository.tokenGeneration === 'PRESERVE_6_4' && card.number.length < 11) {
    throw refuse(`${CARD}.number`, 'Value is invalid. Preserve 6.4 token generation needs a card number of at least 11 digits');
  }
  // The test acquirer's trigger dates (04/27 EXPIRED_CARD, ...) stay storable after they pass.
  if (isExpired(card.expiry, now) && !EXPIRY_TABLE[expiryKey(card.expiry)]) {
    throw refuse(`${CARD}.expiry.year`, `Value '${card.expiry.month}/${String(card.expiry.year).padStart(2, '0')}' is invalid. The card has expired`);
  }
  const details: CardDetails = { type: 'CARD', number: card.number, expiry: card.expiry };
  if (card.nameOnCard !== undefined) details.nameOnCard = card.nameOnCard;
  if (card.securityCode !== undefined) details.securityCode = card.securityCode;
  return details;
}

/** The first of the values that is not undefined (explicit data over session over base). */
const first = <T>(...values: Array<T | undefined>): T | undefined => values.find((v) => v !== undefined);

/** The card: the request's own fields (with those of the session it names under them) over a base: the named token's, a referenced order's or a pushed card. */
async function resolveCard(gateway: Gateway, merchant: MerchantProfile, body: Sourced, target: ValidToken | undefined, now: string) {
  const origin: TokenOrigin = {};
  let base: Partial<CardDetails> = {};
  let pushProvisioned = false;
  if (target?.card) {
    base = { number: gateway.sealer.open(target.card.numberSealed), expiry: target.card.expiry };
  } else if (body.referenceOrderId !== undefined) {
    base = await referencedCard(gateway, merchant, body.referenceOrderId);
    origin.referenceOrderId = body.referenceOrderId;
  } else if (body.sourceOfFunds.schemeTokenProvisioningIdentifier !== undefined) {
    const field = 'sourceOfFunds.schemeTokenProvisioningIdentifier';
    if (!merchant.repository.schemeTokenization) {
      throw refuse(field, `Value is invalid. Token repository '${merchant.repository.id}' is not configured for scheme tokenization: push provisioning is not available`, 'UNSUPPORTED');
    }
    const pushed = pushProvisionedCard(body.sourceOfFunds.schemeTokenProvisioningIdentifier);
    if (!pushed) throw refuse(field, 'Value is invalid. The token service provider knows no card under this identifier');
    base = pushed;
    pushProvisioned = true;
    origin.pushProvisioning = true;
  }
  const explicit = body.sourceOfFunds.provided?.card;
  const expiry = explicit?.expiry ? { month: Number(explicit.expiry.month), year: Number(explicit.expiry.year) } : undefined;
  const merged: Partial<CardDetails> = {
    number: first(explicit?.number, base.number),
    expiry: first(expiry, base.expiry),
    nameOnCard: first(explicit?.nameOnCard, base.nameOnCard),
    securityCode: first(explicit?.securityCode, base.securityCode),
  };
  const details = checkCard(merchant, merged, now);
  return { details, origin, pushProvisioned };
}

function resolveAch(gateway: Gateway, body: Sourced, target: ValidToken | undefined): SourceDetails {
  const ach = body.sourceOfFunds.provided?.ach;
  if (ach === undefined && target?.account?.type === 'ACH') {
    const stored = target.account.ach;
    const number = gateway.sealer.open(stored.bankAccountNumberSealed);
    if (number === undefined) throw refuse('sourceOfFunds.token', 'Value is invalid. The bank account of this token can no longer be read');
    const { bankAccountNumberSealed: _sealed, ...rest } = stored;
    return { type: 'ACH', ach: { ...rest, bankAccountNumber: number } };
  }
  if (ach === undefined) throw missing('sourceOfFunds.provided.ach');
  // Spec: for ACH all ACH members must be given.
  for (const member of ['accountType', 'bankAccountHolder', 'bankAccountNumber', 'routingNumber', 'secCode'] as const) {
    if (ach[member] === undefined) throw missing(`sourceOfFunds.provided.ach.${member}`);
  }
  return { type: 'ACH', ach: ach as AchDetails };
}

function resolveDirectDebitCanada(gateway: Gateway, body: Sourced, target: ValidToken | undefined): SourceDetails {
  const ddc = body.sourceOfFunds.provided?.directDebitCanada;
  if (ddc === undefined && target?.account?.type === 'DIRECT_DEBIT_CANADA') {
    const { bankAccountNumberSealed, bankAccountNumber: _masked, ...rest } = target.account.directDebitCanada;
    const number = gateway.sealer.open(bankAccountNumberSealed);
    if (number === undefined) throw refuse('sourceOfFunds.token', 'Value is invalid. The bank account of this token can no longer be read');
    return { type: 'DIRECT_DEBIT_CANADA', directDebitCanada: { ...rest, bankAccountNumber: number } };
  }
  if (ddc === undefined) throw missing('sourceOfFunds.provided.directDebitCanada');
  return { type: 'DIRECT_DEBIT_CANADA', directDebitCanada: ddc };
}

function resolveWallet(body: Sourced, target: ValidToken | undefined): SourceDetails {
  const wallet = body.sourceOfFunds.provided?.wallet;
  if (wallet === undefined && target?.account?.type === 'WALLET') return { type: 'WALLET', wallet: target.account.wallet };
  if (wallet === undefined) throw missing('sourceOfFunds.provided.wallet');
  // Spec rule 6: browser-payment details are stored only as billing agreement details.
  if (wallet.billingAgreement === undefined) throw missing('sourceOfFunds.provided.wallet.billingAgreement');
  return { type: 'WALLET', wallet: { ...wallet, billingAgreement: wallet.billingAgreement } };
}

/**
 * The details of a token request: the request with the session it names merged under it
 * (session-request.ts: a session holding a card holds sourceOfFunds.type CARD), then its source.
 * The combinations refused are those of what the client sent.
 */
export async function resolveSource(gateway: Gateway, merchant: MerchantProfile, sent: TokenBody, now: string): Promise<Resolution> {
  const { request, session } = await withSession(gateway, merchant, sent, now);
  if (request.sourceOfFunds === undefined) throw missing('sourceOfFunds');
  const body = request as Sourced;
  const sof = body.sourceOfFunds;
  const target = sof.token === undefined ? undefined : await targetToken(gateway, merchant, sof.token);
  const held: SourceType | undefined = target ? (target.card ? 'CARD' : target.account.type) : undefined;
  // Spec: with a token alone sourceOfFunds.type may be left unset.
  const type = sof.type ?? held;
  if (type === undefined) throw missing('sourceOfFunds.type');
  if (held !== undefined && held !== type) throw refuse('sourceOfFunds.type', `Value '${type}' is invalid. Token '${sof.token}' holds ${held} details`);
  checkCombination(sent, type);
  const origin: TokenOrigin = target ? { sourceToken: target.token } : {};
  if (type === 'CARD') {
    const card = await resolveCard(gateway, merchant, body, target, now);
    // Recorded in the token's event: deleting the token forgets the session's card too.
    const merged = { ...origin, ...card.origin, ...(session ? { sessionId: session.sessionId } : {}) };
    return {
      details: card.details, ...(target ? { target } : {}), ...(Object.keys(merged).length > 0 ? { origin: merged } : {}),
      deviceAccount: isDeviceAccountNumber(card.details.number), pushProvisioned: card.pushProvisioned,
      ...(session ? { sessionUsed: session.used } : {}),
    };
  }
  const details = type === 'ACH' ? resolveAch(gateway, body, target)
    : type === 'DIRECT_DEBIT_CANADA' ? resolveDirectDebitCanada(gateway, body, target)
    : resolveWallet(body, target);
  return {
    details, ...(target ? { target } : {}), ...(Object.keys(origin).length > 0 ? { origin } : {}),
    deviceAccount: false, pushProvisioned: false, ...(session ? { sessionUsed: session.used } : {}),
  };
}
