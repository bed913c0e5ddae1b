// The event catalog. Past tense, one fact each, every decision of the simulator inside, so that
// replay never re-runs the simulator and reproduces every response.
import type { Brand, FundingMethod, Scheme } from './card.js';
import type { CscResponse, AvsResponse, PayResult } from './test-acquirer.js';
import type { TokenGeneration } from './token-id.js';

export interface CardExpiry { month: number; year: number }

/** A card as stored against a token: the number only sealed (see store/sealing.ts). */
export interface StoredCard {
  numberSealed: string;
  number: string; // masked 6.4
  brand: Brand;
  scheme: Scheme;
  fundingMethod: FundingMethod;
  expiry: CardExpiry;
}

export interface TokenCreated {
  type: 'TokenCreated';
  data: {
    merchantId: string;
    repositoryId: string;
    token: string;
    tokenGeneration: Exclude<TokenGeneration, 'MERCHANT_SUPPLIED'>;
    sourceOfFunds: { type: 'CARD'; card: StoredCard };
    verification: { strategy: 'BASIC'; gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' };
    status: 'VALID';
    createdAt: string;
  };
}

/** A card's details changed on an existing token (unique-card management saw it again). */
export interface TokenUpdated {
  type: 'TokenUpdated';
  data: {
    merchantId: string;
    repositoryId: string;
    token: string;
    card: StoredCard;
    /** Dotted names of the members that changed, e.g. ["sourceOfFunds.provided.card.expiry"]. */
    changed: string[];
    updatedAt: string;
  };
}

/**
 * An account identifier (card number) was claimed for a token of a repository with unique-card
 * management. The stream is named from a keyed hash of the identifier, never the identifier.
 */
export interface AccountIdentifierReserved {
  type: 'AccountIdentifierReserved';
  data: { repositoryId: string; token: string; reservedAt: string };
}

export interface PaymentOutcome {
  gatewayCode: string;
  result: PayResult;
  acquirerCode: string;
  acquirerMessage: string;
  authorizationCode?: string;
  cardSecurityCode: CscResponse;
  avs?: AvsResponse;
  acquirer: {
    id: string;
    batch: number;
    date: string; // MMDD
    merchantId: string;
    settlementDate: string; // YYYY-MM-DD
    timeZone: string;
    transactionId: string;
  };
  receipt: string;
  stan: string;
  terminal: string;
}

export interface OrderTotals { authorized: number; captured: number; refunded: number } // minor units

export interface PaymentRecorded {
  type: 'PaymentRecorded';
  data: {
    merchantId: string;
    orderId: string;
    transactionId: string;
    /** Keyed hash of the request (path and body, correlationId excluded): detects reused ids. */
    requestFingerprint: string;
    repositoryId: string;
    token: string;
    card: { number: string; brand: Brand; scheme: Scheme; fundingMethod: FundingMethod; type: string; expiry: CardExpiry };
    amount: number; // minor units
    currency: string;
    orderReference?: string;
    transactionReference?: string;
    source: string;
    frequency?: string;
    cashAdvance?: boolean;
    taxLocal?: { amount?: number; exempt?: boolean; reference?: string };
    outcome: PaymentOutcome;
    orderStatus: string;
    totalsAfter: OrderTotals;
    timeOfRecord: string;
  };
}

export interface MerchantConfigured {
  type: 'MerchantConfigured';
  data: {
    merchantId: string;
    repository: {
      id: string;
      tokenGeneration: TokenGeneration;
      tokenManagement: string;
      schemeTokenization: boolean;
      schemeTokenProvisioningMode: string;
    };
  };
}

export type TokenEvent = TokenCreated | TokenUpdated;
export type OrderEvent = PaymentRecorded;
export type DomainEvent = TokenEvent | OrderEvent | MerchantConfigured | AccountIdentifierReserved;
export type DomainEventType = DomainEvent['type'];

/** Stream names, one helper per aggregate (architecture.md). */
export const streams = {
  merchant: (merchantId: string) => `merchant-${merchantId}`,
  token: (repositoryId: string, token: string) => `token-${repositoryId}-${token}`,
  order: (merchantId: string, orderId: string) => `order-${merchantId}-${orderId}`,
  /** `accountHash` is a keyed hash (HMAC) of the account identifier. */
  accountReservation: (repositoryId: string, accountHash: string) => `accountref-${repositoryId}-${accountHash}`,
} as const;
