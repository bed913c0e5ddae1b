// Card number rules: Luhn, brand detection by issuer identification number, 6.4 masking.
// Pure functions; no I/O.

export const CARD_BRANDS = [
  'AMEX', 'CHINA_UNIONPAY', 'DINERS_CLUB', 'DISCOVER', 'JCB',
  'MAESTRO', 'MASTERCARD', 'RUPAY', 'UATP', 'VISA',
] as const;
export type Brand = (typeof CARD_BRANDS)[number] | 'LOCAL_BRAND_ONLY' | 'UNKNOWN';
/** sourceOfFunds.provided.card.scheme: OTHER when the network is not identified. */
export type Scheme = (typeof CARD_BRANDS)[number] | 'OTHER';
export type FundingMethod = 'CHARGE' | 'CREDIT' | 'DEBIT' | 'UNKNOWN';

/** Luhn (mod 10) check over a string of digits (ASCII 0-9 only, at least one). */
export function luhnValid(digits: string): boolean {
  if (digits.length === 0) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (d < 0 || d > 9) return false;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The check digit that makes `body + digit` pass Luhn. */
export function luhnCheckDigit(body: string): string {
  // The digits of body sit at positions 1, 2, ... from the right of body + digit: odd ones doubled.
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = body.charCodeAt(body.length - 1 - i) - 48;
    if (d < 0 || d > 9) throw new Error('unreachable: some digit always completes a Luhn sum');
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

interface Range { from: number; to: number; length: number; brand: (typeof CARD_BRANDS)[number] }
const r = (from: number, to: number, brand: Range['brand']): Range => ({
  from, to, length: String(from).length, brand,
});

// Longest, most specific prefixes first: the first match wins.
const RANGES: readonly Range[] = [
  r(622126, 622925, 'DISCOVER'),
  r(652150, 653149, 'RUPAY'),
  r(606985, 607984, 'RUPAY'),
  r(608001, 608500, 'RUPAY'),
  r(676770, 676770, 'MAESTRO'),
  r(676774, 676774, 'MAESTRO'),
  r(6011, 6011, 'DISCOVER'),
  r(6304, 6304, 'MAESTRO'),
  r(6759, 6759, 'MAESTRO'),
  r(3528, 3589, 'JCB'),
  r(3095, 3095, 'DINERS_CLUB'),
  r(2221, 2720, 'MASTERCARD'),
  r(644, 649, 'DISCOVER'),
  r(300, 305, 'DINERS_CLUB'),
  r(508, 508, 'RUPAY'),
  r(34, 34, 'AMEX'),
  r(37, 37, 'AMEX'),
  r(36, 36, 'DINERS_CLUB'),
  r(38, 39, 'DINERS_CLUB'),
  r(51, 55, 'MASTERCARD'),
  r(50, 50, 'MAESTRO'),
  r(56, 58, 'MAESTRO'),
  r(65, 65, 'DISCOVER'),
  r(62, 62, 'CHINA_UNIONPAY'),
  r(81, 81, 'CHINA_UNIONPAY'),
  r(4, 4, 'VISA'),
  r(1, 1, 'UATP'),
];

function brandOfPrefix(number: string): Brand {
  for (const range of RANGES) {
    const prefix = Number(number.slice(0, range.length));
    if (number.length >= range.length && prefix >= range.from && prefix <= range.to) {
      return range.brand;
    }
  }
  return 'UNKNOWN';
}

/** Brands of the 6-character prefixes seen (bounded: cleared when full). */
const brandCache = new Map<string, Brand>();
const BRAND_CACHE_MAX = 10_000;

/** The card network of a card number, from its leading digits; UNKNOWN when none matches. */
export function detectBrand(number: string): Brand {
  // No range is longer than 6 digits: from 6 characters on, the brand is the first 6's.
  if (number.length < 6) return brandOfPrefix(number);
  const six = number.slice(0, 6);
  let brand = brandCache.get(six);
  if (brand === undefined) {
    brand = brandOfPrefix(six);
    if (brandCache.size >= BRAND_CACHE_MAX) brandCache.clear();
    brandCache.set(six, brand);
  }
  return brand;
}

export function schemeOf(brand: Brand): Scheme {
  return brand === 'UNKNOWN' || brand === 'LOCAL_BRAND_ONLY' ? 'OTHER' : brand;
}

/**
 * Funding method of the sandbox's issuers (documented in docs/operations.md): Maestro cards are debit
 * cards, American Express cards are charge cards, unidentified cards are UNKNOWN, and every
 * other network's cards are credit cards.
 */
export function fundingMethodOf(brand: Brand): FundingMethod {
  switch (brand) {
    case 'MAESTRO': return 'DEBIT';
    case 'AMEX': return 'CHARGE';
    case 'UNKNOWN': case 'LOCAL_BRAND_ONLY': return 'UNKNOWN';
    default: return 'CREDIT';
  }
}

/** card.type of the pay response (one of the spec's 26 values), from brand and funding. */
export function cardTypeOf(brand: Brand, funding: FundingMethod): string {
  if (brand === 'UNKNOWN' || brand === 'LOCAL_BRAND_ONLY') return 'OTHER';
  if (funding === 'DEBIT' && (brand === 'VISA' || brand === 'MASTERCARD')) return `${brand}_DEBIT`;
  return brand;
}

/** 6.4 masking: the first 6 and last 4 digits stay, every other digit becomes 'x'. */
export function mask64(number: string): string {
  if (number.length <= 10) {
    // Too short to keep 6 and 4 and still hide something: keep only the last 4.
    return 'x'.repeat(Math.max(0, number.length - 4)) + number.slice(-4);
  }
  return number.slice(0, 6) + 'x'.repeat(number.length - 10) + number.slice(-4);
}
