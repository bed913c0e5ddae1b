// The card a transaction of the order API names: sent (sourceOfFunds.provided.card), held by the
// session it names, or stored under a token of the merchant's repository. Only its 6.4 mask, brand
// and expiry are kept (in the events): captures, refunds, voids and 3-D Secure need no more.
import { cardTypeOf, detectBrand, fundingMethodOf, luhnValid, mask64, schemeOf } from '../../domain/card.js';
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type OrderSource } from '../../domain/events.js';
import type { MerchantProfile } from '../../merchants.js';
import type { TransactionBody } from '../../schemas/transaction.js';
import type { Gateway } from '../gateway.js';
import type { HeldSession } from '../session/session-request.js';
import { PayableCards, tokenBeside, type PayableCard, type PayableRead } from './payable-cards.js';
import type { ReadBeside } from './read-beside.js';

export const missing = (field: string) => new InvalidRequest(`Missing parameter '${field}' required for this apiOperation`, field, 'MISSING');

const tokenNotFound = () => new InvalidRequest('Token not found', 'sourceOfFunds.token');

const sourceOf = (repositoryId: string, { token, card }: PayableCard): OrderSource =>
  ({ repositoryId, token, card: { ...card, type: cardTypeOf(card.brand, card.fundingMethod) } });

/** The order API's token cards, one set per gateway (as Pay with token's, with the order API's refusal). */
const cardsOf = new WeakMap<Gateway, PayableCards>();

function cardsFor(gateway: Gateway): PayableCards {
  let cards = cardsOf.get(gateway);
  if (cards === undefined) cardsOf.set(gateway, cards = new PayableCards(gateway, tokenNotFound));
  return cards;
}

/**
 * The token's card, from the merchant's own repository only (an unknown, deleted or other
 * repository's token: not found), read the careful way (PayableCards.confirmed).
 */
export async function tokenSource(gateway: Gateway, merchant: MerchantProfile, token: string): Promise<OrderSource> {
  const repositoryId = merchant.repository.id;
  return sourceOf(repositoryId, await cardsFor(gateway).confirmed(streams.token(repositoryId, token), token));
}

/** A token's card as a transaction read it, and its stream as read (a ReadBeside once the command holds the card). */
export interface TokenSourceRead {
  readonly source: OrderSource;
  /** The token's stream as read; confirming it hands the card read the careful way to `apply`. */
  beside(apply: (source: OrderSource) => void): ReadBeside;
}

/**
 * The token's card for a transaction that names no session, as Pay with token reads it
 * (payable-cards.ts): kept, from the store's memory without asking the server where it offers that
 * (then the order's append carries the token's revision as its condition: read-beside.ts), or the
 * careful way; the same refusal as tokenSource's. A request with a session reads both streams the
 * careful way (tokenSource): its decision rests on two streams, and one condition holds only one.
 */
export function tokenSourceRead(gateway: Gateway, merchant: MerchantProfile, token: string): TokenSourceRead | Promise<TokenSourceRead> {
  const known = cardsFor(gateway);
  const repositoryId = merchant.repository.id;
  const stream = streams.token(repositoryId, token);
  const made = (read: PayableRead): TokenSourceRead => ({
    source: sourceOf(repositoryId, read.payable),
    beside: (apply) => tokenBeside(known, stream, token, read, (payable) => apply(sourceOf(repositoryId, payable))),
  });
  const read = known.of(stream, token);
  return read instanceof Promise ? read.then(made) : made(read);
}

/**
 * A card in the request (sourceOfFunds.provided.card.number and expiry, sent or held by the session
 * it names): it takes precedence over a token. Only its 6.4 mask, brand and expiry are kept (in the event); the number itself
 * is never recorded, sealed or not: captures, refunds and voids need no card number.
 */
export function providedSource(card: NonNullable<NonNullable<TransactionBody['sourceOfFunds']>['provided']>['card']): OrderSource | undefined {
  if (card?.number === undefined) return undefined;
  const field = 'sourceOfFunds.provided.card';
  if (card.expiry === undefined) throw missing(`${field}.expiry.month`);
  if (!luhnValid(card.number)) throw new InvalidRequest('Value is invalid. The card number fails the Luhn check', `${field}.number`);
  const brand = detectBrand(card.number);
  const fundingMethod = fundingMethodOf(brand);
  return {
    card: {
      number: mask64(card.number), brand, scheme: schemeOf(brand), fundingMethod, type: cardTypeOf(brand, fundingMethod),
      expiry: { month: Number(card.expiry.month), year: Number(card.expiry.year) },
    },
  };
}

/**
 * The card of the request (`body`: the session's fields merged under those `sent`): a card sent or
 * held by the session takes precedence over a token; undefined when it names none.
 */
export async function requestSource(
  gateway: Gateway, merchant: MerchantProfile, sent: TransactionBody, body: TransactionBody, session: HeldSession | undefined,
): Promise<OrderSource | undefined> {
  const inRequest = providedSource(body.sourceOfFunds?.provided?.card);
  if (inRequest && session && sent.sourceOfFunds?.provided?.card?.number === undefined) inRequest.sessionId = session.sessionId;
  if (inRequest) return inRequest;
  const token = body.sourceOfFunds?.token;
  return token === undefined ? undefined : tokenSource(gateway, merchant, token);
}
