// Create or Update Token with a system-generated token id (spec rules 1-9): the details are
// resolved from the request, a session, a named token, a referenced order or push provisioning
// (token-sources.ts), verified (BASIC, or by the acquirer with transaction.currency), given a
// scheme token where the repository asks for one (scheme-token-requests.ts), and written by the
// repository's rules (token-writes.ts). Account numbers are sealed before they reach an event;
// security codes are never stored. Also Tokenize (the same with the token id in the path: how a
// MERCHANT_SUPPLIED repository creates its tokens) and Delete Token.
import { verificationSucceeded, acquirerVerification } from '../../domain/token/verification.js';
import { maskBankAccount } from '../../domain/token/accounts.js';
import { detectBrand, fundingMethodOf, mask64, schemeOf } from '../../domain/card.js';
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type StoredShipping, type StoredSourceOfFunds, type Verification } from '../../domain/events.js';
import { decideToken } from '../../domain/token/token.js';
import { suppliedTokenIdProblem } from '../../domain/token/token-id.js';
import type { MerchantProfile } from '../../merchants.js';
import type { TokenBody } from '../../schemas/token.js';
import { foldTokenState, readOwnStream, tokenAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { schemeDecision } from './scheme-token-requests.js';
import { failureResponse, tokenResponse, type Presentation, type TokenEchoes } from './token-responses.js';
import { resolveSource, type Resolution, type SourceDetails } from './token-sources.js';
import { checkFormats, mergeStreet } from './token-validation.js';
import type { TokenPlan, WriteContext, WriteOutcome } from './token-plan.js';
import { createNew, createOrReuse, createSupplied, updateNamed } from './token-writes.js';
import { repositoryNow } from '../test-control/sandbox.js';

export type AuthMethod = 'certificate' | 'basic' | 'session' | null;

/**
 * Spec: unmasked numbers need responseControls.sensitiveData UNMASK and certificate
 * authentication. A Basic-authenticated UNMASK request is answered masked, as if not asked.
 */
function presentation(gateway: Gateway, merchant: MerchantProfile, sensitiveData: string | undefined, authMethod: AuthMethod): Presentation {
  const masking = merchant.repository.cardNumberMasking ?? '6.4';
  const unmask = sensitiveData === 'UNMASK' && authMethod === 'certificate';
  return unmask ? { masking, reveal: (sealed) => gateway.sealer.open(sealed) } : { masking };
}

function verify(details: SourceDetails, currency: string | undefined, now: string): Verification {
  if (details.type !== 'CARD') return { strategy: 'NONE', gatewayCode: 'NO_VERIFICATION_PERFORMED' };
  if (currency === undefined) return { strategy: 'BASIC', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' };
  const gatewayCode = acquirerVerification({ brand: detectBrand(details.number), expiry: details.expiry }, details.securityCode, now);
  return { strategy: 'ACQUIRER', gatewayCode, currency };
}

/** Spec rule 7: shipping is kept only with wallet billing-agreement details. */
function shippingOf(body: TokenBody, details: SourceDetails): StoredShipping | undefined {
  if (details.type !== 'WALLET' || body.shipping === undefined) return undefined;
  return mergeStreet(body.shipping) as StoredShipping;
}

/** The details as a response shows them when nothing was stored (nothing sealed, no key made). */
function unstored(details: SourceDetails): StoredSourceOfFunds {
  switch (details.type) {
    case 'CARD': {
      const brand = detectBrand(details.number);
      return { type: 'CARD', card: { numberSealed: '', number: mask64(details.number), brand, scheme: schemeOf(brand), fundingMethod: fundingMethodOf(brand), expiry: details.expiry } };
    }
    case 'ACH': return { type: 'ACH', ach: { ...details.ach, bankAccountNumberSealed: '', bankAccountNumber: maskBankAccount(details.ach.bankAccountNumber) } };
    case 'DIRECT_DEBIT_CANADA': {
      const ddc = details.directDebitCanada;
      return { type: 'DIRECT_DEBIT_CANADA', directDebitCanada: { ...ddc, bankAccountNumberSealed: '', bankAccountNumber: maskBankAccount(ddc.bankAccountNumber) } };
    }
    case 'WALLET': return { type: 'WALLET', wallet: details.wallet };
  }
}

export async function createToken(gateway: Gateway, merchant: MerchantProfile, body: TokenBody, meta: RequestMeta, authMethod: AuthMethod = 'basic') {
  const { repository } = merchant;
  if (repository.tokenGeneration === 'MERCHANT_SUPPLIED') {
    throw new InvalidRequest(
      `Token repository '${repository.id}' uses merchant-supplied token ids: use the Tokenize operation ` +
      '(PUT .../token/{tokenid}) instead of asking the gateway to generate one',
    );
  }
  checkFormats(body);
  const now = repositoryNow(gateway.sandbox, repository.id);
  const resolution = await resolveSource(gateway, merchant, body, now);
  return store(gateway, merchant, body, meta, authMethod, resolution, now, (ctx, plan) => (resolution.target ? updateNamed(ctx, plan, resolution.target.token)
    : repository.tokenManagement === 'UNIQUE_TOKEN' ? createNew(ctx, plan)
    : createOrReuse(ctx, plan)));
}

/**
 * Tokenize: Create or Update Token with the token id in the path (PUT .../token/{tokenid}). The
 * reference: every repository may update its tokens with it; a MERCHANT_SUPPLIED repository also
 * creates its tokens with it (and only with it: POST refuses). A repository that generates its ids
 * gets a new one for the id 'generated' (as POST), and a 400 for an id it does not hold.
 * The details come from the same sources as POST; with none naming another token, the token of
 * the path itself is the base an update overlays (explicit data over session over token), so an
 * update may send only what changes. The same body rules and answer as POST; an identical repeat
 * changes nothing, appends nothing and answers the same token.
 */
export async function tokenize(gateway: Gateway, merchant: MerchantProfile, token: string, body: TokenBody, meta: RequestMeta, authMethod: AuthMethod = 'basic') {
  const { repository } = merchant;
  const supplied = repository.tokenGeneration === 'MERCHANT_SUPPLIED';
  if (!supplied && token === 'generated') return createToken(gateway, merchant, body, meta, authMethod);
  checkFormats(body);
  const existing = foldTokenState(await readOwnStream(gateway.store, streams.token(repository.id, token)));
  // A new id only: a token the repository holds keeps its id (one generated before the repository
  // became merchant-supplied may look like a card number: 16 digits passing Luhn).
  const problem = supplied && existing.status !== 'VALID' ? suppliedTokenIdProblem(token) : undefined;
  if (problem !== undefined) throw new InvalidRequest(problem, 'tokenid');
  if (!supplied && existing.status !== 'VALID') {
    throw new InvalidRequest(
      `Value '${token}' is invalid. No such token in token repository '${repository.id}', which generates its token ids: ` +
      'create tokens with POST .../token (or PUT .../token/generated); Tokenize creates tokens only in a repository with merchant-supplied ids',
      'tokenid',
    );
  }
  const sof = body.sourceOfFunds;
  const overlay = existing.status === 'VALID' && sof?.token === undefined && body.referenceOrderId === undefined && sof?.schemeTokenProvisioningIdentifier === undefined;
  const now = repositoryNow(gateway.sandbox, repository.id);
  const resolution = await resolveSource(gateway, merchant, overlay ? { ...body, sourceOfFunds: { ...sof, token } } : body, now);
  // The token itself is no origin of its own details.
  if (resolution.origin?.sourceToken === token) {
    const { sourceToken: _self, ...rest } = resolution.origin;
    if (Object.keys(rest).length > 0) resolution.origin = rest;
    else delete resolution.origin;
  }
  return store(gateway, merchant, body, meta, authMethod, resolution, now, (ctx, plan) => (supplied ? createSupplied(ctx, plan, token) : updateNamed(ctx, plan, token, 'tokenid')));
}

/** Verify, decide the scheme token, write (`write`: the repository's rule), answer: POST's and PUT's common course. */
async function store(
  gateway: Gateway, merchant: MerchantProfile, body: TokenBody, meta: RequestMeta, authMethod: AuthMethod, resolution: Resolution, now: string,
  write: (ctx: WriteContext, plan: TokenPlan) => Promise<WriteOutcome>,
) {
  const { repository } = merchant;
  try {
    const { details } = resolution;
    const echoes: TokenEchoes = {
      billing: mergeStreet(body.billing), correlationId: body.correlationId, customer: body.customer, device: body.device,
      nameOnCard: details.type === 'CARD' ? details.nameOnCard : undefined,
      referenceOrderId: body.referenceOrderId, schemeTokenProvisioningMode: body.schemeTokenProvisioningMode,
    };
    const view = presentation(gateway, merchant, body.responseControls?.sensitiveData, authMethod);
    const verification = verify(details, body.transaction?.currency, now);
    if (!verificationSucceeded(verification.gatewayCode)) {
      return failureResponse(unstored(details), { gatewayCode: verification.gatewayCode, verificationStrategy: verification.strategy }, repository.id, echoes, view);
    }
    const scheme = schemeDecision(merchant, body.schemeTokenProvisioningMode, resolution, now, gateway.schemeTokens.delayMs);
    const shipping = shippingOf(body, details);
    const plan: TokenPlan = { details, verification };
    if (scheme) {
      plan.scheme = scheme;
      plan.provisioningMode = body.schemeTokenProvisioningMode ?? repository.schemeTokenProvisioningMode;
    }
    if (shipping) plan.shipping = shipping;
    if (resolution.origin) plan.origin = resolution.origin;
    const ctx: WriteContext = { gateway, merchant, meta, now };
    const outcome = await write(ctx, plan);
    if (outcome.kind === 'refused') {
      const { gatewayCode, schemeToken } = outcome.refusal;
      return failureResponse(unstored(details), { gatewayCode, verificationStrategy: verification.strategy, schemeToken }, repository.id, echoes, view);
    }
    // With the position appended, the catch-up returns at once when the store applied the events
    // to the read models inside their commit (SQLite); otherwise it runs as it always did.
    await gateway.readModels.catchUp(outcome.position);
    const schemeCode = outcome.schemeDecided ? outcome.state.schemeToken?.gatewayCode : undefined;
    return tokenResponse(outcome.state, { gatewayCode: schemeCode ?? verification.gatewayCode, verificationStrategy: verification.strategy }, echoes, view);
  } finally {
    resolution.sessionUsed?.();
  }
}

/**
 * Delete Token: TokenDeleted is stored first, then the token is shredded (token-shredding.ts): its
 * unique-account reservations are released and every key that sealed an account number of the
 * token is destroyed, so the number can never be read again, not even from old events or an export.
 * A token made (or updated) from a session forgets the session's card too: every key of those
 * sessions is destroyed, or the session would still hold the number (until it expired) and could
 * make a new token of it. (Consuming the session's card at token creation instead would break the
 * real gateway's behaviour: a session serves several operations within its lifetime.)
 * A crash after the append leaves the shredding to the gateway's TokenShredder, at the next start
 * (why this order and not the other: see token-shredding.ts).
 */
export async function deleteToken(gateway: Gateway, merchant: MerchantProfile, token: string, meta: RequestMeta) {
  const stream = streams.token(merchant.repository.id, token);
  // This process's shredder need not redo a deletion this request shredded (token-shredding.ts).
  const settle = gateway.tokenShredder.shreddingHere(stream);
  let shredded = false;
  try {
    return await handleCommand(gateway, stream, tokenAggregate, (state, { now, history }) => {
      if (state.status !== 'VALID') {
        throw new InvalidRequest(`Value '${token}' is invalid. No such token in the merchant's token repository`, 'tokenid');
      }
      return {
        events: decideToken(state, { type: 'DeleteToken', merchantId: merchant.id, now }),
        answer: async () => {
          await gateway.tokenShredder.shredDeleted(history);
          shredded = true;
          return { result: 'SUCCESS' };
        },
      };
    }, { meta, ownStream: true, busy: 'the token is being changed by too many requests at once' });
  } finally {
    settle(shredded);
  }
}
