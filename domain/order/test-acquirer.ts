// The test acquirer of the real gateway's test environment (../shared/guide/gateway-facts.md):
// the outcome depends on the card's expiry date, the card security code response on the code
// sent, and the AVS response on words in billing.address.street. Pure and deterministic.
import type { Brand } from '../card.js';

export type PayResult = 'SUCCESS' | 'FAILURE' | 'PENDING' | 'UNKNOWN';

export interface Expiry { month: number; year: number } // year: two digits, 2000 + year

export interface AcquirerOutcome {
  gatewayCode: string;
  result: PayResult;
  acquirerCode: string;
  acquirerMessage: string;
}

const OUTCOMES: Record<string, AcquirerOutcome> = {
  APPROVED: { gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00', acquirerMessage: 'Approved' },
  DECLINED: { gatewayCode: 'DECLINED', result: 'FAILURE', acquirerCode: '05', acquirerMessage: 'Do not honour' },
  EXPIRED_CARD: { gatewayCode: 'EXPIRED_CARD', result: 'FAILURE', acquirerCode: '54', acquirerMessage: 'Expired card' },
  TIMED_OUT: { gatewayCode: 'TIMED_OUT', result: 'FAILURE', acquirerCode: '68', acquirerMessage: 'Response received too late' },
  ACQUIRER_SYSTEM_ERROR: { gatewayCode: 'ACQUIRER_SYSTEM_ERROR', result: 'FAILURE', acquirerCode: '96', acquirerMessage: 'System malfunction' },
  UNSPECIFIED_FAILURE: { gatewayCode: 'UNSPECIFIED_FAILURE', result: 'FAILURE', acquirerCode: '06', acquirerMessage: 'Error' },
  UNKNOWN: { gatewayCode: 'UNKNOWN', result: 'UNKNOWN', acquirerCode: '91', acquirerMessage: 'Issuer or switch inoperative' },
};

/** The expiry table of the test acquirer, keyed MM/YY. */
export const EXPIRY_TABLE: Readonly<Record<string, string>> = {
  '01/39': 'APPROVED',
  '05/39': 'DECLINED',
  '04/27': 'EXPIRED_CARD',
  '08/28': 'TIMED_OUT',
  '01/37': 'ACQUIRER_SYSTEM_ERROR',
  '02/37': 'UNSPECIFIED_FAILURE',
  '05/37': 'UNKNOWN',
};

/**
 * The keys of months 1-12 of years 0-99, made as they are met, by month * 100 + year: a pay looks
 * its card's expiry up in three tables, and the same string looked up again is found at once.
 */
const EXPIRY_KEYS: string[] = new Array<string>(1300).fill('');

export function expiryKey(expiry: Expiry): string {
  const { month, year } = expiry;
  const kept = Number.isInteger(month) && Number.isInteger(year) && month >= 1 && month <= 12 && year >= 0 && year <= 99;
  const key = kept ? EXPIRY_KEYS[month * 100 + year] as string : '';
  if (key !== '') return key;
  const made = `${String(month).padStart(2, '0')}/${String(year).padStart(2, '0')}`;
  if (kept) EXPIRY_KEYS[month * 100 + year] = made;
  return made;
}

/** An ISO time's year and month (UTC), read from its text when it is written YYYY-MM-… (a command's time is). */
function yearAndMonth(now: Date | string): [number, number] {
  if (typeof now === 'string' && now.length >= 7 && now[4] === '-') {
    const year = Number(now.slice(0, 4));
    const month = Number(now.slice(5, 7));
    if (Number.isInteger(year) && month >= 1 && month <= 12) return [year, month];
  }
  const date = typeof now === 'string' ? new Date(now) : now;
  return [date.getUTCFullYear(), date.getUTCMonth() + 1];
}

/** True when the card expired before the month of `now` (a card is valid through its month). */
export function isExpired(expiry: Expiry, now: Date | string): boolean {
  const year = 2000 + expiry.year;
  const [currentYear, currentMonth] = yearAndMonth(now);
  return year < currentYear || (year === currentYear && expiry.month < currentMonth);
}

/** Which of the acquirer's rules answers a card with this expiry: what the history pages show as the reason. */
export function expiryRule(expiry: Expiry, now: Date | string): string {
  const key = expiryKey(expiry);
  if (EXPIRY_TABLE[key]) return `expiry ${key} in the test acquirer's table`;
  return isExpired(expiry, now) ? `expiry ${key}: the card has expired` : `expiry ${key}: a card in date is approved`;
}

/** The acquirer's answer for a card with this expiry, at time `now` (a Date or its ISO text). */
export function outcomeForExpiry(expiry: Expiry, now: Date | string): AcquirerOutcome {
  const listed = EXPIRY_TABLE[expiryKey(expiry)];
  if (listed) return OUTCOMES[listed] as AcquirerOutcome;
  return (isExpired(expiry, now) ? OUTCOMES.EXPIRED_CARD : OUTCOMES.APPROVED) as AcquirerOutcome;
}

export type CscGatewayCode = 'MATCH' | 'NOT_PRESENT' | 'NOT_PROCESSED' | 'NOT_SUPPORTED' | 'NO_MATCH';
export interface CscResponse { gatewayCode: CscGatewayCode; acquirerCode?: string }

/**
 * Card security code: 100 MATCH, 101 NOT_PROCESSED, 102 NO_MATCH (American Express 1000, 1010,
 * 1020); none sent: NOT_PRESENT; UATP cards have no CSC: NOT_SUPPORTED. Any other code: MATCH.
 */
export function cardSecurityCodeResponse(securityCode: string | undefined, brand: Brand): CscResponse {
  if (securityCode === undefined) return { gatewayCode: 'NOT_PRESENT' };
  if (brand === 'UATP') return { gatewayCode: 'NOT_SUPPORTED', acquirerCode: 'U' };
  const gatewayCode = (brand === 'AMEX' ? AMEX_CSC_CODES : CSC_CODES).get(securityCode) ?? 'MATCH';
  return { gatewayCode, acquirerCode: CSC_ACQUIRER_CODES[gatewayCode] };
}

const CSC_CODES: ReadonlyMap<string, CscGatewayCode> = new Map([['100', 'MATCH'], ['101', 'NOT_PROCESSED'], ['102', 'NO_MATCH']]);
const AMEX_CSC_CODES: ReadonlyMap<string, CscGatewayCode> = new Map([['1000', 'MATCH'], ['1010', 'NOT_PROCESSED'], ['1020', 'NO_MATCH']]);
const CSC_ACQUIRER_CODES: Readonly<Record<CscGatewayCode, string>> = { MATCH: 'M', NOT_PROCESSED: 'P', NO_MATCH: 'N', NOT_PRESENT: 'S', NOT_SUPPORTED: 'U' };

export interface AvsResponse { gatewayCode: string; acquirerCode: string }

// "<Word> St" in the street selects the AVS code; the acquirer code is the word's letter.
const AVS_WORDS: ReadonlyArray<[RegExp, AvsResponse]> = [
  [/\balpha st\b/i, { gatewayCode: 'ADDRESS_MATCH', acquirerCode: 'A' }],
  [/\bnovember st\b/i, { gatewayCode: 'NO_MATCH', acquirerCode: 'N' }],
  [/\bromeo st\b/i, { gatewayCode: 'SERVICE_NOT_AVAILABLE_RETRY', acquirerCode: 'R' }],
  [/\bsierra st\b/i, { gatewayCode: 'SERVICE_NOT_SUPPORTED', acquirerCode: 'S' }],
  [/\buniform st\b/i, { gatewayCode: 'NOT_AVAILABLE', acquirerCode: 'U' }],
  [/\bwhiskey st\b/i, { gatewayCode: 'ZIP_MATCH', acquirerCode: 'W' }],
  [/\bx-ray st\b/i, { gatewayCode: 'ADDRESS_ZIP_MATCH', acquirerCode: 'X' }],
  [/\bkilo st\b/i, { gatewayCode: 'NAME_MATCH', acquirerCode: 'K' }],
  [/\blove st\b/i, { gatewayCode: 'NAME_ZIP_MATCH', acquirerCode: 'L' }],
  [/\bolive st\b/i, { gatewayCode: 'NAME_ADDRESS_MATCH', acquirerCode: 'O' }],
  [/\bzero st\b/i, { gatewayCode: 'NOT_REQUESTED', acquirerCode: '0' }],
];

/**
 * AVS response, only when the request carries billing.address.street. A street with none of
 * the trigger words is NOT_VERIFIED (the sandbox's choice; documented in docs/triggers.md).
 */
export function avsResponse(street: string | undefined): AvsResponse | undefined {
  if (street === undefined) return undefined;
  for (const [pattern, response] of AVS_WORDS) {
    if (pattern.test(street)) return response;
  }
  return { gatewayCode: 'NOT_VERIFIED', acquirerCode: 'I' };
}
