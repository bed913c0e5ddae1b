// The acquirer's references of a transaction (authorization code, receipt, STAN, its own id),
// derived from the merchant, order and transaction ids, and the batch of the day: the same
// request gets the same references on every run and every store (a client's recorded exchanges
// replay byte for byte), on both order paths and for an UNKNOWN made final.
//
// They never hold a number the request sent: every third character is a letter, so no reference
// has three digits in a row, and a security code (3 or 4 digits), a card number or any run of
// three or more of its digits, an amount's digits or a numeric id cannot appear in one (a client
// that scrubs the security code out of a transcript finds it nowhere else). A derivation that
// drew digits only and skipped the security code would tell, by what it skipped, something of the
// code to anyone who can recompute the derivation (its key is no secret).
import { createHmac } from 'node:crypto';
import type { AcquirerIds } from '../../domain/order/order.js';

/** The derivation's key: a constant (the references must be the same on every gateway). */
const KEY = 'tokengate acquirer references 1';

const DIGITS = '0123456789';
/** Consonants only: no word spelled by chance. */
const LETTERS = 'BCDFGHJKLMNPQRSTVWXZ';
const HEX = '0123456789ABCDEF';
const HEX_LETTERS = 'ABCDEF';

/** The references of one transaction, without the batch (a number per day). */
export type TransactionReferences = Omit<AcquirerIds, 'batch'>;

/**
 * `length` characters from `bytes` at `offset`, one byte each: a letter at every third place
 * (the 3rd, 6th, ...), a character of `others` elsewhere; at most two digits in a row.
 */
function characters(bytes: Buffer, offset: number, length: number, others: string, letters: string): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    const byte = bytes[offset + i] as number;
    out += i % 3 === 2 ? letters[byte % letters.length] : others[byte % others.length];
  }
  return out;
}

/** The acquirer's references of transaction (merchantId, orderId, transactionId). */
export function transactionReferences(merchantId: string, orderId: string, transactionId: string): TransactionReferences {
  // 64 bytes, of which 44 are used: 6 + 12 + 6 + 20 characters.
  const bytes = createHmac('sha512', KEY).update(JSON.stringify([merchantId, orderId, transactionId])).digest();
  return {
    authorizationCode: characters(bytes, 0, 6, DIGITS, LETTERS),
    receipt: characters(bytes, 6, 12, DIGITS, LETTERS),
    stan: characters(bytes, 18, 6, DIGITS, LETTERS),
    // 20 hexadecimal digits, upper case.
    acquirerTransactionId: characters(bytes, 24, 20, HEX, HEX_LETTERS),
  };
}

/** The batch of the last day asked for (a number per day, not a text made on every pay). */
let lastDay = '';
let lastBatch = 0;

/** A transaction's references and the batch of the day of `now` (YYYYMMDD as a number). */
export function acquirerIds(references: TransactionReferences, now: string): AcquirerIds {
  const day = now.slice(0, 10);
  if (day !== lastDay) {
    lastDay = day;
    lastBatch = Number(day.replace(/-/g, ''));
  }
  return { ...references, batch: lastBatch };
}
