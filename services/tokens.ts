// Create or Update Token with a system-generated token id, for a card given in the request.
// The card number is sealed before it reaches an event; the security code is never stored.
import { isIP } from 'node:net';
import { isCountryAlpha3 } from '../domain/countries.js';
import { InvalidRequest } from '../domain/errors.js';
import { streams, type AccountIdentifierReserved, type StoredCard } from '../domain/events.js';
import { detectBrand, fundingMethodOf, luhnValid, mask64, schemeOf } from '../domain/card.js';
import { decideToken, evolveToken, initialTokenState, TokenIdTaken, type TokenState } from '../domain/token.js';
import { generateToken } from '../domain/token-id.js';
import { EXPIRY_TABLE, expiryKey, isExpired } from '../domain/test-acquirer.js';
import type { MerchantProfile } from '../merchants.js';
import type { TokenBody } from '../schemas/token.js';
import { WrongExpectedRevisionError } from '../store/event-store.js';
import { Busy, randomDigits, toEventData, type RequestMeta } from './context.js';
import { foldToken, revisionAfter } from './aggregates.js';
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
  checkFormats(body);
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
  // The test acquirer's trigger dates (04/27 EXPIRED_CARD, ...) stay storable after they pass.
  if (isExpired(expiry, new Date(now)) && !EXPIRY_TABLE[expiryKey(expiry)]) {
    throw new InvalidRequest(`Value '${provided.expiry.month}/${provided.expiry.year}' is invalid. The card has expired`, `${CARD}.expiry.year`);
  }

  const echoes = {
    billing: mergeStreet(body.billing),
    correlationId: body.correlationId,
    customer: body.customer,
    device: body.device,
    nameOnCard: provided.nameOnCard,
  };
  const ctx: Creation = { gateway, merchant, number, expiry, now, meta };
  const state = repository.tokenManagement === 'UNIQUE_TOKEN' ? await createNew(ctx) : await createOrReuse(ctx);
  await gateway.readModels.catchUp();
  return tokenResponse(state, echoes);
}

interface Creation {
  gateway: Gateway;
  merchant: MerchantProfile;
  number: string;
  expiry: StoredCard['expiry'];
  now: string;
  meta: RequestMeta;
}

type ValidToken = Extract<TokenState, { status: 'VALID' }>;

function valid(state: TokenState): ValidToken {
  if (state.status !== 'VALID') throw new Error('token expected to exist');
  return state;
}

/** Seal the number under a new key of its own and describe the card (all but the number masked). */
function storedCard({ gateway, number, expiry }: Creation): StoredCard {
  const brand = detectBrand(number);
  return {
    numberSealed: gateway.sealer.seal(gateway.sealer.newKey(), number),
    number: mask64(number),
    brand,
    scheme: schemeOf(brand),
    fundingMethod: fundingMethodOf(brand),
    expiry,
  };
}

/** Append TokenCreated under `token` (a stream that must not exist yet). */
async function writeToken(ctx: Creation, token: string, card: StoredCard): Promise<ValidToken> {
  const { repository } = ctx.merchant;
  if (repository.tokenGeneration === 'MERCHANT_SUPPLIED') throw new Error('unreachable');
  const events = decideToken(initialTokenState(), {
    type: 'CreateCardToken', merchantId: ctx.merchant.id, repositoryId: repository.id,
    tokenGeneration: repository.tokenGeneration, token, card, now: ctx.now,
  });
  await ctx.gateway.store.append(streams.token(repository.id, token), toEventData(events, ctx.meta, ctx.now), { expectedRevision: 'no_stream' });
  return valid(events.reduce(evolveToken, initialTokenState() as TokenState));
}

function newTokenId(ctx: Creation): string {
  const { tokenGeneration } = ctx.merchant.repository;
  if (tokenGeneration === 'MERCHANT_SUPPLIED') throw new Error('unreachable');
  return generateToken(tokenGeneration, ctx.number, randomDigits);
}

/** UNIQUE_TOKEN: every request stores the card under a new token. */
async function createNew(ctx: Creation): Promise<ValidToken> {
  const card = storedCard(ctx);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    try {
      return await writeToken(ctx, newTokenId(ctx), card);
    } catch (error) {
      // The generated id is taken by another token of this repository: draw another.
      if (error instanceof WrongExpectedRevisionError || error instanceof TokenIdTaken) continue;
      throw error;
    }
  }
  throw new Busy(`no free token id after ${MAX_ATTEMPTS} attempts`);
}

/**
 * UNIQUE_CARD / UNIQUE_ACCOUNT_IDENTIFIER (spec rule 3): a card number already stored returns its
 * token, updated (TokenUpdated) when the expiry changed. The claim on the card number is a
 * reservation stream named from a keyed hash of it, created with expected revision no_stream:
 * of any number of simultaneous requests, in this process or another, exactly one wins.
 */
async function createOrReuse(ctx: Creation): Promise<ValidToken> {
  const { gateway, merchant } = ctx;
  const repositoryId = merchant.repository.id;
  const reservation = streams.accountReservation(repositoryId, gateway.sealer.fingerprint(`card:${repositoryId}:${ctx.number}`));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const claims = await gateway.store.readStream(reservation);
    // The latest claim names the card's token; a claim on a deleted token is replaced.
    const claim = claims.at(-1)?.data as AccountIdentifierReserved['data'] | undefined;
    const history = claim ? await gateway.store.readStream(streams.token(repositoryId, claim.token)) : [];
    const state = foldToken(history);
    if (!claim || state.status === 'DELETED') {
      const token = newTokenId(ctx);
      if ((await gateway.store.readStream(streams.token(repositoryId, token))).length > 0) continue;
      const reserved: AccountIdentifierReserved = { type: 'AccountIdentifierReserved', data: { repositoryId, token, reservedAt: ctx.now } };
      try {
        await gateway.store.append(reservation, toEventData([reserved], ctx.meta, ctx.now), { expectedRevision: revisionAfter(claims) });
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue; // another request claimed the card first
        throw error;
      }
      return writeToken(ctx, token, storedCard(ctx));
    }
    if (state.status !== 'VALID') {
      // The winner has not written its token yet; after a short wait, finish its work for it
      // (it may have stopped between the two appends).
      if (attempt < MAX_ATTEMPTS / 2) { await sleep(5 * (attempt + 1)); continue; }
      try {
        return await writeToken(ctx, claim.token, storedCard(ctx));
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue;
        throw error;
      }
    }
    const updates = decideToken(state, { type: 'RefreshCardToken', merchantId: merchant.id, expiry: ctx.expiry, now: ctx.now });
    if (updates.length === 0) return state;
    try {
      await gateway.store.append(streams.token(repositoryId, claim.token), toEventData(updates, ctx.meta, ctx.now), { expectedRevision: revisionAfter(history) });
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) continue;
      throw error;
    }
    return valid(updates.reduce(evolveToken, state as TokenState));
  }
  throw new Busy('the card is being stored by too many requests at once');
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What the schema's patterns cannot say: IP addresses and ISO 3166 country codes. */
function checkFormats(body: TokenBody): void {
  const ip = body.device?.ipAddress;
  if (ip !== undefined && isIP(ip) === 0) {
    throw new InvalidRequest(`Value '${ip}' is invalid. Expected an IPv4 address nnn.nnn.nnn.nnn or an IPv6 address`, 'device.ipAddress');
  }
  for (const [country, field] of [[body.billing?.address?.country, 'billing.address.country'], [body.shipping?.address?.country, 'shipping.address.country']] as const) {
    if (country !== undefined && !isCountryAlpha3(country)) {
      throw new InvalidRequest(`Value '${country}' is invalid. Expected an ISO 3166-1 alpha-3 country code`, field);
    }
  }
}

/** Spec: street2 is merged into street in the response, truncated at 100 characters (code points). */
function mergeStreet(billing: TokenBody['billing']): TokenBody['billing'] {
  const address = billing?.address;
  if (!address || address.street2 === undefined) return billing;
  const { street2, ...rest } = address;
  const street = [...[address.street, street2].filter((s) => s !== undefined).join(' ')].slice(0, 100).join('');
  return { ...billing, address: { ...rest, street } };
}

/**
 * Delete Token: TokenDeleted is stored first, then the card-number key is destroyed, so the
 * number can never be read again, not even from old events or an export.
 */
export async function deleteToken(gateway: Gateway, merchant: MerchantProfile, token: string, meta: RequestMeta) {
  const stream = streams.token(merchant.repository.id, token);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const history = await gateway.store.readStream(stream);
    const state = foldToken(history);
    if (state.status !== 'VALID') {
      throw new InvalidRequest(`Value '${token}' is invalid. No such token in the merchant's token repository`, 'tokenid');
    }
    const now = new Date().toISOString();
    const events = decideToken(state, { type: 'DeleteToken', merchantId: merchant.id, now });
    try {
      await gateway.store.append(stream, toEventData(events, meta, now), { expectedRevision: revisionAfter(history) });
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) continue;
      throw error;
    }
    for (const e of history) {
      const sealed = (e.data as { sourceOfFunds?: { card?: { numberSealed?: string } }; card?: { numberSealed?: string } });
      const keyId = gateway.sealer.keyIdOf(sealed.sourceOfFunds?.card?.numberSealed ?? sealed.card?.numberSealed ?? '');
      if (keyId) gateway.sealer.destroyKey(keyId);
    }
    await gateway.readModels.catchUp();
    return { result: 'SUCCESS' };
  }
  throw new Busy('the token is being changed by too many requests at once');
}
