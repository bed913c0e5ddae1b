// The scheme-token decision a create request takes, by provisioning mode (push provisioning,
// the request's schemeTokenProvisioningMode or the repository's); and the provider-assigned
// identifiers, the reactor's too. What happens after the request is the reactor's
// (services/token/scheme-tokens.ts).
import { randomBytes } from 'node:crypto';
import { detectBrand } from '../../domain/card.js';
import type { ProvisioningMode, SchemeTokenDetails, SchemeTokenProvider } from '../../domain/events.js';
import { decideSchemeTokenAtCreation, pushProvisionedSchemeToken, type SchemeTokenRefused, type SchemeTokenStored } from '../../domain/token/scheme-token.js';
import type { MerchantProfile } from '../../merchants.js';
import type { Resolution } from './token-sources.js';

const PREFIX: Record<SchemeTokenProvider, string> = { MDES: 'DWSPMC', VTS: 'VTS', AETS: 'AETS' };
/** A provider-assigned identifier (spec: schemeToken.tokenIdentifier, 1-64). */
export const newTokenIdentifier = (provider: SchemeTokenProvider | undefined) =>
  `${provider ? PREFIX[provider] : 'TSP'}${randomBytes(16).toString('hex').toUpperCase()}`;

/**
 * The scheme-token decision of a create request: push provisioning always (ACTIVE at once);
 * otherwise card tokens of a repository configured for scheme tokenization, in the request's
 * schemeTokenProvisioningMode or the repository's.
 */
export function schemeDecision(merchant: MerchantProfile, mode: ProvisioningMode | undefined, resolution: Resolution, now: string, delayMs: number): SchemeTokenRefused | SchemeTokenStored | undefined {
  const { details } = resolution;
  if (details.type !== 'CARD') return undefined;
  const card = { brand: detectBrand(details.number), expiry: details.expiry };
  if (resolution.pushProvisioned) {
    const schemeToken = pushProvisionedSchemeToken(card, '', now);
    return { kind: 'stored', schemeToken: { ...schemeToken, tokenIdentifier: newTokenIdentifier(schemeToken.provider) } };
  }
  if (!merchant.repository.schemeTokenization) return undefined;
  const decision = decideSchemeTokenAtCreation({
    card, mode: mode ?? merchant.repository.schemeTokenProvisioningMode, deviceAccount: resolution.deviceAccount,
    tokenIdentifier: '', now, delayMs,
  });
  return withIdentifier(decision);
}

function withIdentifier<T extends { schemeToken: SchemeTokenDetails }>(decision: T): T {
  const { schemeToken } = decision;
  if (schemeToken.tokenIdentifier === undefined) return decision;
  return { ...decision, schemeToken: { ...schemeToken, tokenIdentifier: newTokenIdentifier(schemeToken.provider) } };
}
