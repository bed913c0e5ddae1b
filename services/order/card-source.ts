// The card a transaction of the order API names: sent (sourceOfFunds.provided.card), held by the
// session it names, or stored under a token of the merchant's repository. Only its 6.4 mask, brand
// and expiry are kept (in the events): captures, refunds, voids and 3-D Secure need no more.
import { cardTypeOf, detectBrand, fundingMethodOf, luhnValid, mask64, schemeOf } from '../../domain/card.js';
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type OrderSource } from '../../domain/events.js';
import type { MerchantProfile } from '../../merchants.js';
import type { TransactionBody } from '../../schemas/transaction.js';
import { foldToken, readOwnStream } from '../aggregates.js';
import type { Gateway } from '../gateway.js';
import type { HeldSession } from '../session/session-request.js';

export const missing = (field: string) => new InvalidRequest(`Missing parameter '${field}' required for this apiOperation`, field, 'MISSING');

/** The token's card, from the merchant's own repository only (an unknown, deleted or other repository's token: not found). */
export async function tokenSource(gateway: Gateway, merchant: MerchantProfile, token: string): Promise<OrderSource> {
  const repositoryId = merchant.repository.id;
  const state = foldToken(await readOwnStream(gateway.store, streams.token(repositoryId, token)));
  if (state.status !== 'VALID') throw new InvalidRequest('Token not found', 'sourceOfFunds.token');
  const { numberSealed: _sealed, ...card } = state.card;
  return { repositoryId, token: state.token, card: { ...card, type: cardTypeOf(card.brand, card.fundingMethod) } };
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
