// Scheme-token decisions: what a create request records (by provisioning mode), and what the
// scheme-token reactor records when pending work falls due. Time and the provider-assigned
// identifier are passed in; the provider's answers come from scheme-token-simulator.ts.
import type { Brand } from '../card.js';
import type { CardExpiry, ProvisioningMode, SchemeTokenDetails, SchemeTokenizationCode } from '../events.js';
import { providerVerdict, type Verdict } from './scheme-token-simulator.js';

export interface SchemeTokenAttempt {
  card: { brand: Brand; expiry: CardExpiry };
  mode: ProvisioningMode;
  /** The card is a device account number (DPAN): no scheme tokenization (spec rule 5). */
  deviceAccount: boolean;
  tokenIdentifier: string;
  now: string;
  delayMs: number;
}

/** A SYNCHRONOUS request whose scheme token could not be obtained: no gateway token (spec). */
export interface SchemeTokenRefused { kind: 'refused'; gatewayCode: SchemeTokenizationCode; schemeToken: SchemeTokenDetails }
export interface SchemeTokenStored { kind: 'stored'; schemeToken: SchemeTokenDetails }

const later = (now: string, delayMs: number) => new Date(Date.parse(now) + delayMs).toISOString();
const withProvider = (verdict: Verdict) => (verdict.provider ? { provider: verdict.provider } : {});

/** The scheme token once the provider answered ACTIVE, INELIGIBLE or UNAVAILABLE. */
function answered(verdict: Verdict, a: { tokenIdentifier: string; now: string; delayMs: number }): SchemeTokenDetails {
  const base = { ...withProvider(verdict), statusTime: a.now, rule: verdict.rule };
  switch (verdict.answer.kind) {
    case 'ACTIVE': {
      const gatewayCode = verdict.answer.additionalAuthentication
        ? 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED' : 'SCHEME_TOKENIZATION_SUCCESSFUL';
      const next = verdict.answer.lifecycle ? { nextActionAt: later(a.now, a.delayMs) } : {};
      return { ...base, status: 'ACTIVE', tokenIdentifier: a.tokenIdentifier, gatewayCode, ...next };
    }
    case 'INELIGIBLE': return { ...base, status: 'INELIGIBLE', gatewayCode: 'SCHEME_TOKENIZATION_DECLINED' };
    case 'ERROR': return { ...base, status: 'TOKENIZATION_UNAVAILABLE', gatewayCode: 'SCHEME_TOKENIZATION_ERROR' };
    case 'UNAVAILABLE':
      return verdict.provider
        ? { ...base, status: 'TOKENIZATION_UNAVAILABLE', gatewayCode: 'SCHEME_TOKENIZATION_ERROR' }
        : { ...base, status: 'TOKENIZATION_UNAVAILABLE' };
  }
}

/**
 * The scheme token a create request records. ASYNCHRONOUS: PROVISIONING, finished later.
 * ATTEMPT_SYNCHRONOUS and SYNCHRONOUS ask the provider now; on a provider error the first records
 * PROVISIONING with a retry later, the second refuses (and so does it on a decline).
 */
export function decideSchemeTokenAtCreation(a: SchemeTokenAttempt): SchemeTokenRefused | SchemeTokenStored {
  if (a.deviceAccount) {
    return { kind: 'stored', schemeToken: { status: 'TOKENIZATION_UNAVAILABLE', statusTime: a.now, rule: 'device account number: no scheme tokenization' } };
  }
  const verdict = providerVerdict(a.card, 'request');
  if (verdict.answer.kind === 'UNAVAILABLE') return { kind: 'stored', schemeToken: answered(verdict, a) };
  if (a.mode === 'ASYNCHRONOUS') {
    return { kind: 'stored', schemeToken: { ...withProvider(verdict), status: 'PROVISIONING', statusTime: a.now, rule: 'ASYNCHRONOUS: requested after the response', nextActionAt: later(a.now, a.delayMs) } };
  }
  const schemeToken = answered(verdict, a);
  const failed = verdict.answer.kind === 'ERROR' || verdict.answer.kind === 'INELIGIBLE';
  if (failed && a.mode === 'SYNCHRONOUS') return { kind: 'refused', gatewayCode: schemeToken.gatewayCode ?? 'SCHEME_TOKENIZATION_ERROR', schemeToken };
  if (verdict.answer.kind === 'ERROR') {
    return { kind: 'stored', schemeToken: { ...schemeToken, status: 'PROVISIONING', nextActionAt: later(a.now, a.delayMs) } };
  }
  return { kind: 'stored', schemeToken };
}

/** Push provisioning: the issuer already provisioned the scheme token; it is ACTIVE at once. */
export function pushProvisionedSchemeToken(card: { brand: Brand; expiry: CardExpiry }, tokenIdentifier: string, now: string): SchemeTokenDetails {
  const verdict = providerVerdict(card, 'later');
  return { ...withProvider(verdict), status: 'ACTIVE', statusTime: now, tokenIdentifier, gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL', rule: 'push provisioning: provided ACTIVE by the issuer' };
}

/**
 * Pending work that fell due: provisioning finishes (ACTIVE, INELIGIBLE, TOKENIZATION_UNAVAILABLE)
 * or an ACTIVE token's lifecycle change happens. Undefined when nothing is due at `now`.
 */
export function decideSchemeTokenDue(current: SchemeTokenDetails, card: { brand: Brand; expiry: CardExpiry }, a: { tokenIdentifier: string; now: string; delayMs: number }): SchemeTokenDetails | undefined {
  if (current.nextActionAt === undefined || Date.parse(a.now) < Date.parse(current.nextActionAt)) return undefined;
  const verdict = providerVerdict(card, 'later');
  if (current.status === 'PROVISIONING') return answered(verdict, a);
  if (current.status === 'ACTIVE' && verdict.answer.kind === 'ACTIVE' && verdict.answer.lifecycle) {
    const { nextActionAt: _done, gatewayCode: _answered, ...rest } = current;
    return { ...rest, status: verdict.answer.lifecycle, statusTime: a.now, rule: verdict.rule };
  }
  return undefined;
}
