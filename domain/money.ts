// Money in integer minor units of the currency (ISO 4217 exponents from `currency-codes`).
// Requests carry amounts as strings ("100.00"); responses carry JSON numbers.
import currencyCodes from 'currency-codes';

/** Response decimal rule of the spec: at most 1000000000000. */
export const MAX_AMOUNT = 1_000_000_000_000;

/** The number of minor-unit digits of an ISO 4217 currency, or undefined when unsupported. */
const MINOR_UNITS = new Map<string, number | undefined>();

export function minorUnits(currency: string): number | undefined {
  const known = MINOR_UNITS.get(currency);
  if (known !== undefined) return known;
  // Cached for the 26^3 possible codes only: arbitrary text is looked up, never kept.
  if (!/^[A-Z]{3}$/.test(currency)) return lookUpMinorUnits(currency);
  if (!MINOR_UNITS.has(currency)) MINOR_UNITS.set(currency, lookUpMinorUnits(currency));
  return MINOR_UNITS.get(currency);
}

function lookUpMinorUnits(currency: string): number | undefined {
  if (NOT_PAYABLE.has(currency)) return undefined;
  const entry = currencyCodes.code(currency);
  if (!entry || typeof entry.digits !== 'number' || !Number.isInteger(entry.digits)) return undefined;
  // Responses carry at most 3 decimals (spec, "Response decimal amounts"): CLF and UYW (4) cannot be paid in.
  if (entry.digits > 3) return undefined;
  return entry.digits;
}

/**
 * ISO 4217 codes whose minor unit is "N.A.": precious metals, bond-market units, special drawing
 * rights, testing and "no currency" codes. `currency-codes` lists them with 0 digits; they are
 * not money a card pays in.
 */
const NOT_PAYABLE = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

export type AmountProblem =
  | { kind: 'format' }
  | { kind: 'too_many_decimals'; allowed: number }
  | { kind: 'zero' }
  | { kind: 'too_large' };

export type ParsedAmount = { ok: true; minor: number } | { ok: false; problem: AmountProblem };

/**
 * Parse a request decimal ("12.5", "100.00", "7") into minor units of a currency with
 * `digits` minor-unit digits. Rejects more decimals than the currency has, zero, and amounts
 * above the response maximum.
 *
 * A text of at most 15 characters (every amount a request may send: the schema's bound is 14) is
 * read character by character; any other by the regular expression of parseAmountByRegex, whose
 * answers these are (property-tested: test/domain/money.test.ts). (Its regular expressions and
 * strings showed in the pay benchmark's profile.)
 */
export function parseAmount(text: string, digits: number): ParsedAmount {
  const length = text.length;
  if (length === 0 || length > 15) return parseAmountByRegex(text, digits);
  let whole = 0;
  let i = 0;
  for (; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) break; // '.'
    if (c < 48 || c > 57) return parseAmountByRegex(text, digits);
    whole = whole * 10 + (c - 48);
  }
  if (i === 0) return parseAmountByRegex(text, digits);
  // The fraction's digits, up to its last one that is not a zero.
  let fraction = 0;
  let fractionDigits = 0;
  let pending = 0;
  for (let j = i + 1; j < length; j++) {
    const c = text.charCodeAt(j);
    if (c < 48 || c > 57) return parseAmountByRegex(text, digits);
    pending++;
    if (c !== 48) {
      fraction = fraction * 10 ** pending + (c - 48);
      fractionDigits += pending;
      pending = 0;
    }
  }
  if (fractionDigits > digits) return { ok: false, problem: { kind: 'too_many_decimals', allowed: digits } };
  return amountOf(whole * 10 ** digits + fraction * 10 ** (digits - fractionDigits), digits);
}

/** parseAmount by regular expressions: any text (and the reference of the faster reading). */
export function parseAmountByRegex(text: string, digits: number): ParsedAmount {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[1] === undefined)) return { ok: false, problem: { kind: 'format' } };
  const whole = match[1];
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > digits) return { ok: false, problem: { kind: 'too_many_decimals', allowed: digits } };
  return amountOf(Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0'), digits);
}

function amountOf(minor: number, digits: number): ParsedAmount {
  if (!Number.isSafeInteger(minor) || minor > MAX_AMOUNT * 10 ** digits) {
    return { ok: false, problem: { kind: 'too_large' } };
  }
  if (minor === 0) return { ok: false, problem: { kind: 'zero' } };
  return { ok: true, minor };
}

/** Minor units back to the JSON number of a response (e.g. 1280 USD cents → 12.8). */
export function toDecimal(minor: number, digits: number): number {
  // IEEE division is correctly rounded: an integer below 2^53 divided by an exact power of ten
  // (10^1..10^3) is the double nearest the exact decimal, the one its text parses to (12.34, not
  // 12.340000000000002). Not an integer: written out and parsed back as before.
  if (digits === 0) return minor;
  return Number.isSafeInteger(minor) && digits <= 3 ? minor / 10 ** digits : Number((minor / 10 ** digits).toFixed(digits));
}

/** Minor units as a request-style decimal string, e.g. 1280 → "12.80"; exact, by the digits. */
export function formatAmount(minor: number, digits: number): string {
  if (digits === 0) return String(minor);
  if (!Number.isSafeInteger(minor)) return (minor / 10 ** digits).toFixed(digits);
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return `${minor < 0 ? '-' : ''}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}
