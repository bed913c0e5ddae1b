// The words every describer of services/queries/outcome.ts shares: an outcome's shape, reading
// an event's data loosely (a field of another type is left out, never thrown on), an amount in
// minor units as the gateway writes it, a result's tone.
import { formatAmount, minorUnits } from '../../domain/money.js';

export type Tone = 'ok' | 'failed' | 'pending';

export interface Outcome {
  summary: string;
  tone: Tone;
  /** The rule that decided it, when the event says. */
  rule?: string;
  /** The transaction it is about (payments, notifications), e.g. "order 10000000001 · transaction 1". */
  transaction?: string;
}

export type Data = Record<string, unknown>;
export type Describe = (d: Data) => Outcome;

export const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
export const obj = (v: unknown): Data => (v && typeof v === 'object' && !Array.isArray(v) ? v as Data : {});

/** "12.50 USD" from minor units and a currency. */
export function money(amount: unknown, currency: unknown): string {
  const code = str(currency);
  const digits = minorUnits(code);
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) return code;
  return `${digits === undefined ? String(amount) : formatAmount(amount, digits)} ${code}`.trim();
}

/** The tone of a payment's result: FAILURE red, UNKNOWN and PENDING amber. */
export function toneOfResult(result: unknown): Tone {
  if (result === 'FAILURE') return 'failed';
  return result === 'UNKNOWN' || result === 'PENDING' ? 'pending' : 'ok';
}

/** The transaction an event is about: "order 10000000001 · transaction 1". */
export const transactionOf = (d: Data) => (d.orderId ? `order ${str(d.orderId)} · transaction ${str(d.transactionId)}` : undefined);

/** A stored card or bank account in a few words: "512345xxxxxx0008 MASTERCARD 01/39". */
export function fundsOf(sourceOfFunds: Data): string {
  const card = obj(sourceOfFunds.card ?? obj(sourceOfFunds.provided).card);
  if (card.number) {
    const expiry = obj(card.expiry);
    const when = expiry.month ? ` ${String(expiry.month).padStart(2, '0')}/${String(expiry.year).padStart(2, '0')}` : '';
    return `${str(card.number)} ${str(card.brand)}${when}`.trim();
  }
  return str(sourceOfFunds.type);
}
