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
// code to anyone who can recompute the derivation (it holds no secret).
import { hash } from 'node:crypto';
import type { AcquirerIds } from '../../domain/order/order.js';

/**
 * What the hashed text begins with: a constant, no secret (the references must be the same on
 * every gateway); a one-shot hash, not an Hmac object per pay (store/sealing.ts says what one costs).
 */
const DOMAIN = 'tokengate acquirer references 1\n';

const DIGITS = Buffer.from('0123456789', 'latin1');
/** Consonants only: no word spelled by chance. */
const LETTERS = Buffer.from('BCDFGHJKLMNPQRSTVWXZ', 'latin1');
const HEX = Buffer.from('0123456789ABCDEF', 'latin1');
const HEX_LETTERS = Buffer.from('ABCDEF', 'latin1');

/** The references of one transaction, without the batch (a number per day). */
export type TransactionReferences = Omit<AcquirerIds, 'batch'>;

/** The characters are written here (6 + 12 + 6 + 20), then read out as one string. */
const SCRATCH = Buffer.alloc(44);

/**
 * Characters `from` to `to` of SCRATCH, from the digest's bytes at the same places, one byte
 * each: a letter at every third place of the field (its 3rd, 6th, ...), a character of `others`
 * elsewhere; so at most two digits in a row.
 */
function characters(digest: string, from: number, to: number, others: Buffer, letters: Buffer): void {
  for (let i = from; i < to; i++) {
    const byte = digest.charCodeAt(i);
    SCRATCH[i] = (i - from) % 3 === 2 ? letters[byte % letters.length] as number : others[byte % others.length] as number;
  }
}

/** The acquirer's references of transaction (merchantId, orderId, transactionId). */
export function transactionReferences(merchantId: string, orderId: string, transactionId: string): TransactionReferences {
  // The digest's 64 bytes (44 used) as a 'binary' (latin1) string, a character per byte: no Buffer made for them.
  const digest = hash('sha512', DOMAIN + JSON.stringify([merchantId, orderId, transactionId]), 'binary') as string;
  characters(digest, 0, 6, DIGITS, LETTERS);
  characters(digest, 6, 18, DIGITS, LETTERS);
  characters(digest, 18, 24, DIGITS, LETTERS);
  // 20 hexadecimal digits, upper case.
  characters(digest, 24, 44, HEX, HEX_LETTERS);
  const text = SCRATCH.toString('latin1', 0, 44);
  return { authorizationCode: text.slice(0, 6), receipt: text.slice(6, 18), stan: text.slice(18, 24), acquirerTransactionId: text.slice(24, 44) };
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
  // Member by member (an object spread is a generic copy, visible on every pay).
  return {
    authorizationCode: references.authorizationCode, receipt: references.receipt, stan: references.stan,
    acquirerTransactionId: references.acquirerTransactionId, batch: lastBatch,
  };
}
