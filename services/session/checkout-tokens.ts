// The stored cards a checkout offers the payer (Initiate Checkout's interaction.tokens, which the
// gateway took until version 100 removed it): tokens of the merchant's own repository, each checked
// when the checkout is initiated and read again whenever the page shows them, so that a token
// deleted or updated since is shown as it is now (or no longer). The page sees a stored card as the
// payer reads one: masked number, brand, expiry; it pays with the card's token.
import { InvalidRequest } from '../../domain/errors.js';
import { streams } from '../../domain/events.js';
import { maskCardNumber } from '../../domain/token/accounts.js';
import type { MerchantProfile } from '../../merchants.js';
import type { CheckoutBody } from '../../schemas/checkout.js';
import { foldToken, readOwnStream } from '../aggregates.js';
import type { Gateway } from '../gateway.js';
import { maskingOf } from '../order/responses.js';
import { mmyy } from '../token/token-responses.js';

/** The first version without interaction.tokens (the v100 migration guide: "Removed"). */
export const TOKENS_REMOVED_IN = 100;

export interface StoredCardView { token: string; number: string; brand: string; expiry: string }

async function cardOf(gateway: Gateway, merchant: MerchantProfile, token: string): Promise<StoredCardView | undefined> {
  const state = foldToken(await readOwnStream(gateway.store, streams.token(merchant.repository.id, token)));
  if (state.status !== 'VALID') return undefined;
  const { card } = state;
  return { token, number: maskCardNumber(card.number, maskingOf(merchant)), brand: card.brand, expiry: mmyy(card.expiry) };
}

/**
 * interaction.tokens checked: refused from version 100, each a valid token of the merchant's
 * repository (the value is never echoed: a token field may hold a card number by mistake). A token
 * named twice is offered once. Undefined when none is sent.
 */
export async function offeredTokens(gateway: Gateway, merchant: MerchantProfile, body: CheckoutBody, version: number): Promise<string[] | undefined> {
  const tokens = body.interaction?.tokens;
  if (tokens === undefined) return undefined;
  if (version >= TOKENS_REMOVED_IN) throw new InvalidRequest('Unexpected parameter \'interaction.tokens\'', 'interaction.tokens', 'UNSUPPORTED');
  for (const [i, token] of tokens.entries()) {
    if (!await cardOf(gateway, merchant, token)) {
      throw new InvalidRequest('Value is invalid. No such token in the merchant\'s token repository', `interaction.tokens[${i}]`);
    }
  }
  return [...new Set(tokens)];
}

/** The offered tokens' cards as they are now (a token deleted since is left out). */
export async function storedCards(gateway: Gateway, merchant: MerchantProfile, tokens: readonly string[] | undefined): Promise<StoredCardView[]> {
  const cards = await Promise.all((tokens ?? []).map((token) => cardOf(gateway, merchant, token)));
  return cards.filter((card): card is StoredCardView => card !== undefined);
}
