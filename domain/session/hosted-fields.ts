// What the payer typed into the hosted fields of session.js (routes/hosted-session.ts), checked as
// the gateway checks it before it updates the session. A field in error is named in the
// formSessionUpdate callback's `errors`, under the keys of the reference's examples (cardNumber,
// expiryMonth, expiryYear, securityCode; nameOnCard for the name), with `missing` (a field the
// update needs, left empty) or `invalid`. The security code and the name are optional (the
// reference's FAQ: a payer who gives no security code gets none in the answer); an expiry month
// needs its year and the other way round (the Hosted Session guide: "if card.expiryMonth is used
// then card.expiryYear is mandatory and vice versa"). The bounds are Update Session's
// (schemas/token.ts ProvidedCard). Pure.
import { luhnValid } from '../card.js';

/** The hosted fields' values as typed, one per field the page configured (a field not configured: absent). */
export interface HostedCardInput {
  number?: string | undefined;
  expiryMonth?: string | undefined;
  expiryYear?: string | undefined;
  securityCode?: string | undefined;
  nameOnCard?: string | undefined;
}

export type HostedFieldError = 'missing' | 'invalid';
export type HostedErrorKey = 'cardNumber' | 'expiryMonth' | 'expiryYear' | 'securityCode' | 'nameOnCard';
export type HostedErrors = Partial<Record<HostedErrorKey, HostedFieldError>>;

/** The card as Update Session takes it (sourceOfFunds.provided.card). */
export interface HostedCard {
  number?: string;
  expiry?: { month: string; year: string };
  securityCode?: string;
  nameOnCard?: string;
}

export type HostedCheck = { ok: true; card: HostedCard } | { ok: false; errors: HostedErrors };

const MONTH = /^(0?[1-9]|1[0-2])$/;
const NAME_MAX = 256;

/** The digits of a card number as typed: spaces and dashes (the embossed grouping) taken out. */
export const cardDigits = (typed: string) => typed.replace(/[\s-]/g, '');

function checkNumber(typed: string): HostedFieldError | string {
  const digits = cardDigits(typed);
  if (digits === '') return 'missing';
  return /^[0-9]{9,19}$/.test(digits) && luhnValid(digits) ? digits : 'invalid';
}

/** Two digits of the year: `39` or `2039` (a select of four-digit years). */
function checkYear(typed: string): HostedFieldError | { year: string } {
  const year = typed.trim();
  if (year === '') return 'missing';
  if (/^[0-9]{2}$/.test(year)) return { year };
  return /^20[0-9]{2}$/.test(year) ? { year: year.slice(2) } : 'invalid';
}

function checkMonth(typed: string): HostedFieldError | { month: string } {
  const month = typed.trim();
  if (month === '') return 'missing';
  return MONTH.test(month) ? { month: String(Number(month)) } : 'invalid';
}

/** The expiry of the two fields: both or none (a month sent without its year field: the year is missing). */
function checkExpiry(input: HostedCardInput, errors: HostedErrors, card: HostedCard): void {
  if (input.expiryMonth === undefined && input.expiryYear === undefined) return;
  const month = checkMonth(input.expiryMonth ?? '');
  const year = checkYear(input.expiryYear ?? '');
  if (typeof month === 'string') errors.expiryMonth = month;
  if (typeof year === 'string') errors.expiryYear = year;
  if (typeof month !== 'string' && typeof year !== 'string') card.expiry = { month: month.month, year: year.year };
}

function checkOptional(input: HostedCardInput, errors: HostedErrors, card: HostedCard): void {
  const code = input.securityCode?.trim() ?? '';
  if (code !== '') {
    if (/^[0-9]{3,4}$/.test(code)) card.securityCode = code;
    else errors.securityCode = 'invalid';
  }
  const name = input.nameOnCard?.trim() ?? '';
  if (name !== '') {
    if (name.length <= NAME_MAX) card.nameOnCard = name;
    else errors.nameOnCard = 'invalid';
  }
}

/** The card to store in the session, or the fields in error (nothing is stored then). */
export function checkHostedCard(input: HostedCardInput): HostedCheck {
  const errors: HostedErrors = {};
  const card: HostedCard = {};
  if (input.number !== undefined) {
    const number = checkNumber(input.number);
    if (number === 'missing' || number === 'invalid') errors.cardNumber = number;
    else card.number = number;
  }
  checkExpiry(input, errors, card);
  checkOptional(input, errors, card);
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, card };
}
