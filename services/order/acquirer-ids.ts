// The acquirer's references of a transaction (authorization code, receipt, STAN, its own id, the
// batch of the day), drawn for every decision of Pay with token and of the order API.
import type { AcquirerIds } from '../../domain/order/order.js';
import { randomDigits, hexDigits } from '../context.js';

/** The batch of the last day asked for (a number per day, not a text made on every pay). */
let lastDay = '';
let lastBatch = 0;

export function acquirerIds(now: string): AcquirerIds {
  // One draw of 24 digits and one of 19 hex digits, cut up (fewer strings made than one draw each).
  const digits = randomDigits(24);
  const hex = hexDigits(19);
  const day = now.slice(0, 10);
  if (day !== lastDay) {
    lastDay = day;
    lastBatch = Number(day.replace(/-/g, ''));
  }
  return {
    authorizationCode: digits.slice(0, 6),
    receipt: digits.slice(6, 18),
    stan: digits.slice(18, 24),
    // 20 hex digits, upper case (what the first 20 of a UUIDv4 without dashes were: the 13th is a 4).
    acquirerTransactionId: `${hex.slice(0, 12)}4${hex.slice(12)}`,
    batch: lastBatch,
  };
}
