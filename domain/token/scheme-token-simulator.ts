// The sandbox's token service providers (MDES, VTS, AETS): deterministic rules that say what a
// scheme-token request for a card gets, and the cards that push provisioning hands out. The
// "Scheme tokens" in docs/operations.md is the user's copy of these rules. Pure; no I/O.
import { detectBrand, luhnCheckDigit, type Brand } from '../card.js';
import type { CardExpiry, SchemeTokenProvider } from '../events.js';

/** When the provider is asked: during the create request, or later (the scheme-token reactor). */
export type Phase = 'request' | 'later';

export type ProviderAnswer =
  | { kind: 'ACTIVE'; additionalAuthentication: boolean; lifecycle?: 'SUSPENDED' | 'DEACTIVATED' }
  | { kind: 'INELIGIBLE' }
  | { kind: 'ERROR' }
  | { kind: 'UNAVAILABLE' };

export interface Verdict { provider?: SchemeTokenProvider; answer: ProviderAnswer; rule: string }

/** The sandbox's scheme-token year: expiry MM/35 selects a provider behaviour by its month. */
const SCHEME_TOKEN_YEAR = 35;

function providerOf(brand: Brand): SchemeTokenProvider | undefined {
  switch (brand) {
    case 'MASTERCARD': case 'MAESTRO': return 'MDES';
    case 'VISA': return 'VTS';
    case 'AMEX': return 'AETS';
    default: return undefined;
  }
}

const key = (expiry: CardExpiry) => `${String(expiry.month).padStart(2, '0')}/${String(expiry.year).padStart(2, '0')}`;

/**
 * What the provider answers for a card. Cards of brands without a provider are not sent
 * (TOKENIZATION_UNAVAILABLE). Expiry MM/35 selects a behaviour; any other expiry (so every test
 * card of the real test environment with its usual dates) gets an ACTIVE scheme token.
 */
export function providerVerdict(card: { brand: Brand; expiry: CardExpiry }, phase: Phase): Verdict {
  const provider = providerOf(card.brand);
  if (!provider) return { answer: { kind: 'UNAVAILABLE' }, rule: `brand ${card.brand}: no token service provider, not requested` };
  const at = `expiry ${key(card.expiry)}`;
  const verdict = (answer: ProviderAnswer, rule: string): Verdict => ({ provider, answer, rule: `${at}: ${rule}` });
  if (card.expiry.year !== SCHEME_TOKEN_YEAR) return verdict({ kind: 'ACTIVE', additionalAuthentication: false }, 'ACTIVE');
  switch (card.expiry.month) {
    case 1: return verdict({ kind: 'INELIGIBLE' }, 'INELIGIBLE (declined by the provider)');
    case 2: return verdict({ kind: 'ACTIVE', additionalAuthentication: true }, 'ACTIVE, additional authentication required');
    case 3: return phase === 'request'
      ? verdict({ kind: 'ERROR' }, 'provider error during the request; succeeds when retried')
      : verdict({ kind: 'ACTIVE', additionalAuthentication: false }, 'ACTIVE on retry');
    case 4: return verdict({ kind: 'ACTIVE', additionalAuthentication: false, lifecycle: 'SUSPENDED' }, 'ACTIVE, then SUSPENDED by the issuer');
    case 5: return verdict({ kind: 'ACTIVE', additionalAuthentication: false, lifecycle: 'DEACTIVATED' }, 'ACTIVE, then DEACTIVATED by the issuer');
    case 6: return phase === 'request'
      ? verdict({ kind: 'ERROR' }, 'provider error during the request; unavailable when retried')
      : verdict({ kind: 'UNAVAILABLE' }, 'provider still unavailable on retry: TOKENIZATION_UNAVAILABLE');
    default: return verdict({ kind: 'ACTIVE', additionalAuthentication: false }, 'ACTIVE');
  }
}

/** FNV-1a, 32 bits: a stable spread of an identifier's characters into digits. */
function fnv1a(text: string, seed: number): number {
  let hash = 0x811c9dc5 ^ seed;
  for (const ch of text) {
    hash ^= ch.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

function digitsOf(text: string, count: number): string {
  let out = '';
  for (let seed = 0; out.length < count; seed++) out += String(fnv1a(text, seed)).padStart(10, '0');
  return out.slice(0, count);
}

/**
 * Push provisioning (spec rule 9): the card the issuer made available under an identifier.
 * Identifiers starting with UNKNOWN are not known to the provider. The first letter chooses the
 * network (V: Visa, A: American Express, anything else: Mastercard); the digits follow from the
 * identifier; the expiry is the identifier's last four digits after a '-' (-MMYY), else 01/39.
 */
export function pushProvisionedCard(identifier: string): { number: string; expiry: CardExpiry } | undefined {
  if (/^UNKNOWN/i.test(identifier)) return undefined;
  const first = identifier[0]?.toUpperCase();
  const [prefix, length] = first === 'V' ? ['400000', 16] : first === 'A' ? ['370000', 15] : ['222300', 16];
  const body = prefix + digitsOf(identifier, length - prefix.length - 1);
  const number = body + luhnCheckDigit(body);
  const tail = /-(0[1-9]|1[0-2])([0-9]{2})$/.exec(identifier);
  const expiry = tail ? { month: Number(tail[1]), year: Number(tail[2]) } : { month: 1, year: 39 };
  if (detectBrand(number) === 'UNKNOWN') return undefined;
  return { number, expiry };
}
