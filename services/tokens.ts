// Create or Update Token with a system-generated token id, for a card given in the request.
// The card number is sealed before it reaches an event; the security code is never stored.
import { InvalidRequest } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import { detectBrand, fundingMethodOf, luhnValid, mask64, schemeOf } from '../domain/card.js';
import { decideToken, evolveToken, initialTokenState, TokenIdTaken, type TokenState } from '../domain/token.js';
import { generateToken } from '../domain/token-id.js';
import { isExpired } from '../domain/test-acquirer.js';
import type { MerchantProfile } from '../merchants.js';
import type { TokenBody } from '../schemas/token.js';
import { WrongExpectedRevisionError } from '../store/event-store.js';
import { randomDigits, toEventData, type RequestMeta } from './context.js';
import type { Gateway } from './gateway.js';
import { tokenResponse } from './responses.js';

const MAX_ATTEMPTS = 10;
const CARD = 'sourceOfFunds.provided.card';

/** Operations of the spec that a later part of tokengate will bring; refused plainly until then. */
function refuseNotYetSupported(body: TokenBody): void {
  const unsupported: Array<[unknown, string]> = [
    [body.session, 'session'],
    [body.referenceOrderId, 'referenceOrderId'],
    [body.sourceOfFunds.token, 'sourceOfFunds.token'],
    [body.sourceOfFunds.schemeTokenProvisioningIdentifier, 'sourceOfFunds.schemeTokenProvisioningIdentifier'],
    [body.transaction?.currency, 'transaction.currency'],
  ];
  for (const [value, field] of unsupported) {
    if (value !== undefined) throw new InvalidRequest(`Parameter '${field}' is not supported by this tokengate release`, field, 'UNSUPPORTED');
  }
}

export async function createToken(gateway: Gateway, merchant: MerchantProfile, body: TokenBody, meta: RequestMeta) {
  const repository = merchant.repository;
  if (repository.tokenGeneration === 'MERCHANT_SUPPLIED') {
    throw new InvalidRequest(
      `Token repository '${repository.id}' uses merchant-supplied token ids: use the Tokenize operation ` +
      '(PUT .../token/{tokenid}) instead of asking the gateway to generate one',
    );
  }
  if (body.sourceOfFunds.type !== 'CARD') {
    throw new InvalidRequest(`Value '${body.sourceOfFunds.type}' is not supported by this tokengate release`, 'sourceOfFunds.type', 'UNSUPPORTED');
  }
  refuseNotYetSupported(body);
  const provided = body.sourceOfFunds.provided?.card;
  if (!provided?.number) throw new InvalidRequest('Missing parameter', `${CARD}.number`, 'MISSING');
  if (!provided.expiry) throw new InvalidRequest('Missing parameter', `${CARD}.expiry.month`, 'MISSING');
  const number = provided.number;
  if (!luhnValid(number)) throw new InvalidRequest('Value is invalid. The card number fails the Luhn check', `${CARD}.number`);
  if (repository.tokenGeneration === 'PRESERVE_6_4' && number.length < 11) {
    throw new InvalidRequest('Value is invalid. Preserve 6.4 token generation needs a card number of at least 11 digits', `${CARD}.number`);
  }
  const expiry = { month: Number(provided.expiry.month), year: Number(provided.expiry.year) };
  const now = new Date().toISOString();
  if (isExpired(expiry, new Date(now))) {
    throw new InvalidRequest(`Value '${provided.expiry.month}/${provided.expiry.year}' is invalid. The card has expired`, `${CARD}.expiry.year`);
  }

  const brand = detectBrand(number);
  const keyId = gateway.sealer.newKey();
  const card = {
    numberSealed: gateway.sealer.seal(keyId, number),
    number: mask64(number),
    brand,
    scheme: schemeOf(brand),
    fundingMethod: fundingMethodOf(brand),
    expiry,
  };

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const token = generateToken(repository.tokenGeneration, number, randomDigits);
    const stream = streams.token(repository.id, token);
    try {
      const events = decideToken(initialTokenState(), {
        type: 'CreateCardToken', merchantId: merchant.id, repositoryId: repository.id,
        tokenGeneration: repository.tokenGeneration, token, card, now,
      });
      await gateway.store.append(stream, toEventData(events, meta, now), { expectedRevision: 'no_stream' });
      await gateway.readModels.catchUp();
      const state = events.reduce(evolveToken, initialTokenState() as TokenState);
      if (state.status !== 'VALID') throw new Error('a created token is VALID');
      return tokenResponse(state, {
        billing: mergeStreet(body.billing),
        correlationId: body.correlationId,
        customer: body.customer,
        device: body.device,
        nameOnCard: provided.nameOnCard,
      });
    } catch (error) {
      // The generated id is taken (by a token of this repository): draw another.
      if (error instanceof WrongExpectedRevisionError || error instanceof TokenIdTaken) continue;
      throw error;
    }
  }
  throw new Error(`no free token id after ${MAX_ATTEMPTS} attempts`);
}

/** Spec: street2 is merged into street in the response, truncated at 100 characters. */
function mergeStreet(billing: TokenBody['billing']): TokenBody['billing'] {
  const address = billing?.address;
  if (!address || address.street2 === undefined) return billing;
  const { street2, ...rest } = address;
  const street = [address.street, street2].filter((s) => s !== undefined).join(' ').slice(0, 100);
  return { ...billing, address: { ...rest, street } };
}
