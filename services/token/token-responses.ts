// Create or Update Token response bodies (spec: "Create token: response body"), built from the
// token's state and what this request decided and echoes. Card numbers are masked 6.4 or the
// merchant's stricter 0.4; bank account numbers masked; both unmasked only when `reveal` is given
// (UNMASK with certificate authentication, see services/token/tokens.ts).
import { maskCardNumber, type CardNumberMasking } from '../../domain/token/accounts.js';
import type { SchemeTokenDetails, StoredShipping, StoredSourceOfFunds } from '../../domain/events.js';
import { optional } from '../../domain/order/order.js';
import { sourceOfFundsOf, type ValidToken } from '../../domain/token/token.js';

export const mmyy = (e: { month: number; year: number }) => String(e.month).padStart(2, '0') + String(e.year).padStart(2, '0');

export interface TokenEchoes {
  billing?: unknown;
  correlationId?: string | undefined;
  customer?: unknown;
  device?: unknown;
  nameOnCard?: string | undefined;
  referenceOrderId?: string | undefined;
  schemeTokenProvisioningMode?: string | undefined;
}

export interface Presentation {
  masking: CardNumberMasking;
  /** Opens a sealed account number; only when the caller may see it unmasked. */
  reveal?: ((sealed: string) => string | undefined) | undefined;
}

export function schemeTokenView(schemeToken: SchemeTokenDetails | undefined) {
  if (!schemeToken) return undefined;
  const { provider, status, statusTime, tokenIdentifier } = schemeToken;
  return optional({ provider, status, statusTime, tokenIdentifier });
}

/** sourceOfFunds.provided.* of a stored token, masked as the presentation says. */
function providedView(source: StoredSourceOfFunds, view: Presentation, nameOnCard?: string) {
  const reveal = (sealed: string, masked: string) => view.reveal?.(sealed) ?? masked;
  switch (source.type) {
    case 'CARD': {
      const { card } = source;
      const number = view.reveal?.(card.numberSealed) ?? maskCardNumber(card.number, view.masking);
      return { card: optional({ brand: card.brand, expiry: mmyy(card.expiry), fundingMethod: card.fundingMethod, nameOnCard, number, scheme: card.scheme }) };
    }
    case 'ACH': {
      const { bankAccountNumberSealed, bankAccountNumber, ...rest } = source.ach;
      return { ach: { ...rest, bankAccountNumber: reveal(bankAccountNumberSealed, bankAccountNumber) } };
    }
    case 'DIRECT_DEBIT_CANADA': {
      const { bankAccountNumberSealed, bankAccountNumber, ...rest } = source.directDebitCanada;
      return { directDebitCanada: { ...rest, bankAccountNumber: reveal(bankAccountNumberSealed, bankAccountNumber) } };
    }
    case 'WALLET':
      return { wallet: source.wallet };
  }
}

/**
 * What a token response repeats of the request, success or failure (never stored). The members
 * are written out, not spread (`{ ...echoed, more }`): on Node 20 a spread followed by more
 * members is slow enough to show in the token benchmarks (bench/README.md).
 */
export function tokenResponse(state: ValidToken, outcome: { gatewayCode: string; verificationStrategy: string }, echoes: TokenEchoes, view: Presentation, lastUsed?: string) {
  const source = sourceOfFundsOf(state);
  return optional({
    billing: echoes.billing,
    correlationId: echoes.correlationId,
    customer: echoes.customer,
    device: echoes.device,
    referenceOrderId: echoes.referenceOrderId,
    schemeTokenProvisioningMode: echoes.schemeTokenProvisioningMode,
    repositoryId: state.repositoryId,
    response: { gatewayCode: outcome.gatewayCode },
    result: 'SUCCESS',
    schemeToken: schemeTokenView(state.schemeToken),
    // Spec rule 7: shipping only for a token holding wallet billing-agreement details.
    shipping: source.type === 'WALLET' ? shippingView(state.shipping) : undefined,
    sourceOfFunds: { provided: providedView(source, view, echoes.nameOnCard), type: source.type },
    status: 'VALID',
    token: state.token,
    usage: optional({ lastUpdated: state.lastUpdated, lastUpdatedBy: state.merchantId, lastUsed }),
    verificationStrategy: outcome.verificationStrategy,
  });
}

const shippingView = (shipping: StoredShipping | undefined) => (shipping && Object.keys(shipping).length > 0 ? shipping : undefined);

/**
 * A request that stored nothing: the acquirer declined the verification, or a SYNCHRONOUS scheme
 * token could not be obtained (spec: no gateway token is created). result FAILURE, no token.
 */
export function failureResponse(source: StoredSourceOfFunds, outcome: { gatewayCode: string; verificationStrategy: string; schemeToken?: SchemeTokenDetails }, repositoryId: string, echoes: TokenEchoes, view: Presentation) {
  return optional({
    billing: echoes.billing,
    correlationId: echoes.correlationId,
    customer: echoes.customer,
    device: echoes.device,
    referenceOrderId: echoes.referenceOrderId,
    schemeTokenProvisioningMode: echoes.schemeTokenProvisioningMode,
    repositoryId,
    response: { gatewayCode: outcome.gatewayCode },
    result: 'FAILURE',
    schemeToken: schemeTokenView(outcome.schemeToken),
    sourceOfFunds: { provided: providedView(source, { masking: view.masking }, echoes.nameOnCard), type: source.type },
    verificationStrategy: outcome.verificationStrategy,
  });
}
