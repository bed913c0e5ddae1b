// The token aggregate's events (and the reservation of an account identifier): past tense, one
// fact each, every decision of the simulator inside, so that replay never re-runs the simulator.
import type { Brand, FundingMethod, Scheme } from '../card.js';
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

/** ACH bank account details as stored: the account number only sealed, and masked. */
export interface StoredAch {
  accountType: 'CONSUMER_CHECKING' | 'CONSUMER_SAVINGS' | 'CORPORATE_CHECKING';
  bankAccountHolder: string;
  bankAccountNumberSealed: string;
  bankAccountNumber: string; // masked: every character but the last 4 is 'x'
  routingNumber: string;
  secCode: 'PPD' | 'TEL' | 'WEB';
}

/** Canadian direct debit bank account details as stored (account number sealed and masked). */
export interface StoredDirectDebitCanada {
  accountType?: 'CONSUMER_CHECKING' | 'CONSUMER_SAVINGS';
  bankAccountHolder: string;
  bankAccountNumberSealed: string;
  bankAccountNumber: string; // masked
  financialInstitutionNumber: string;
  transitNumber: string;
}

/** Browser-payment (wallet) billing agreement details (spec rule 6: only billing agreements). */
export interface StoredWallet {
  accountEmail?: string;
  accountHolder?: string;
  billingAgreement: { cardinality: 'MULTIPLE' | 'SINGLE'; description?: string; id: string; name?: string };
  payerId?: string;
}

export type StoredSourceOfFunds =
  | { type: 'CARD'; card: StoredCard }
  | { type: 'ACH'; ach: StoredAch }
  | { type: 'DIRECT_DEBIT_CANADA'; directDebitCanada: StoredDirectDebitCanada }
  | { type: 'WALLET'; wallet: StoredWallet };

/** Shipping details, kept only against a token holding wallet billing-agreement details (spec rule 7). */
export interface StoredShipping {
  address?: Record<string, string>;
  contact?: { firstName?: string; lastName?: string };
  origin?: { postcodeZip?: string };
}

export type VerificationStrategy = 'ACQUIRER' | 'BASIC' | 'NONE';
/** How the details were verified: BASIC checks, the acquirer (transaction.currency), or none (bank accounts, wallets). */
export interface Verification { strategy: VerificationStrategy; gatewayCode: string; currency?: string }

export type SchemeTokenProvider = 'AETS' | 'MDES' | 'VTS';
export type SchemeTokenStatus = 'ACTIVE' | 'DEACTIVATED' | 'INELIGIBLE' | 'PROVISIONING' | 'SUSPENDED' | 'TOKENIZATION_UNAVAILABLE';
export type SchemeTokenizationCode =
  | 'SCHEME_TOKENIZATION_DECLINED' | 'SCHEME_TOKENIZATION_ERROR' | 'SCHEME_TOKENIZATION_SUCCESSFUL'
  | 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED';

/**
 * The scheme token of a gateway token as decided by the token service provider simulator
 * (domain/token/scheme-token-simulator.ts). `nextActionAt`: when the scheme-token reactor acts next
 * (provisioning to finish, or a lifecycle change to come); absent when nothing is pending.
 */
export interface SchemeTokenDetails {
  provider?: SchemeTokenProvider;
  status: SchemeTokenStatus;
  statusTime: string;
  tokenIdentifier?: string;
  /** The provider's answer to the latest attempt, as response.gatewayCode reports it. */
  gatewayCode?: SchemeTokenizationCode;
  /** The simulator rule that decided, e.g. "expiry 01/35: INELIGIBLE". */
  rule: string;
  nextActionAt?: string;
}

export type ProvisioningMode = 'ASYNCHRONOUS' | 'ATTEMPT_SYNCHRONOUS' | 'SYNCHRONOUS';

/** Where the stored details came from, when not (only) from the request itself. */
export interface TokenOrigin {
  sessionId?: string;
  sourceToken?: string;
  referenceOrderId?: string;
  pushProvisioning?: boolean;
}

export interface TokenCreated {
  type: 'TokenCreated';
  data: {
    merchantId: string;
    repositoryId: string;
    token: string;
    /** MERCHANT_SUPPLIED: the id came from the merchant (Tokenize, PUT .../token/{tokenid}). */
    tokenGeneration: TokenGeneration;
    sourceOfFunds: StoredSourceOfFunds;
    verification: Verification;
    status: 'VALID';
    createdAt: string;
    shipping?: StoredShipping;
    schemeToken?: SchemeTokenDetails;
    provisioningMode?: ProvisioningMode;
    origin?: TokenOrigin;
  };
}

/**
 * Details changed on an existing token (unique-account management saw the account again, or a
 * request named it in sourceOfFunds.token). Only the members that changed are present.
 */
export interface TokenUpdated {
  type: 'TokenUpdated';
  data: {
    merchantId: string;
    repositoryId: string;
    token: string;
    card?: StoredCard;
    ach?: StoredAch;
    directDebitCanada?: StoredDirectDebitCanada;
    wallet?: StoredWallet;
    shipping?: StoredShipping;
    verification?: Verification;
    /** A new scheme token is requested when the card number changed. */
    schemeToken?: SchemeTokenDetails;
    /** Dotted names of the members that changed, e.g. ["sourceOfFunds.provided.card.expiry"]. */
    changed: string[];
    updatedAt: string;
    origin?: TokenOrigin;
  };
}

/** The scheme token's status changed after the request (services/token/scheme-tokens.ts reactor). */
export interface SchemeTokenStatusChanged {
  type: 'SchemeTokenStatusChanged';
  data: {
    merchantId: string;
    repositoryId: string;
    token: string;
    previousStatus: SchemeTokenStatus;
    schemeToken: SchemeTokenDetails;
  };
}

/**
 * The token was deleted (Delete Token). Its card-number key is destroyed after this event is
 * stored, so the sealed number in older events can never be read again (crypto-shredding);
 * the history still replays, with masked values.
 */
export interface TokenDeleted {
  type: 'TokenDeleted';
  data: { merchantId: string; repositoryId: string; token: string; deletedAt: string };
}

/**
 * An account identifier (card number, bank account, billing agreement id) was claimed for a token
 * of a repository with unique-card or unique-account-identifier management. The stream is named by a
 * random reservation id (older versions: a keyed hash of the identifier), never the identifier; the
 * link from the identifier to it lives in the key store only, and is forgotten when the token is deleted.
 */
export interface AccountIdentifierReserved {
  type: 'AccountIdentifierReserved';
  data: { repositoryId: string; token: string; reservedAt: string };
}

export type TokenEvent = TokenCreated | TokenUpdated | TokenDeleted | SchemeTokenStatusChanged;
export const TOKEN_EVENT_TYPES: ReadonlySet<string> = new Set<TokenEvent['type']>(['TokenCreated', 'TokenUpdated', 'TokenDeleted', 'SchemeTokenStatusChanged']);
