// What a token write works with: the plan a request's checks produced (everything decided but the
// token id), the request's context, and the outcome (services/token/tokens.ts answers from it).
import type { ProvisioningMode, StoredShipping, TokenOrigin, Verification } from '../../domain/events.js';
import type { SchemeTokenRefused, SchemeTokenStored } from '../../domain/token/scheme-token.js';
import type { ValidToken } from '../../domain/token/token.js';
import type { MerchantProfile } from '../../merchants.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import type { SourceDetails } from './token-sources.js';

/** What a request would store, every decision taken except the token id. */
export interface TokenPlan {
  details: SourceDetails;
  verification: Verification;
  /** The scheme-token decision for a new card (or a changed card number); absent: none attempted. */
  scheme?: SchemeTokenRefused | SchemeTokenStored;
  provisioningMode?: ProvisioningMode;
  shipping?: StoredShipping;
  origin?: TokenOrigin;
}

export type WriteOutcome =
  /** `position`: the log position of the last event written (absent when nothing was written). */
  | { kind: 'stored'; state: ValidToken; schemeDecided: boolean; position?: bigint }
  | { kind: 'refused'; refusal: SchemeTokenRefused };

export interface WriteContext { gateway: Gateway; merchant: MerchantProfile; meta: RequestMeta; now: string }
