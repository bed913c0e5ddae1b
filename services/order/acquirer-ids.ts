// The acquirer's references of a transaction (authorization code, receipt, STAN, its own id, the
// batch of the day), drawn for every decision of Pay with token and of the order API.
import type { AcquirerIds } from '../../domain/order/order.js';
import { randomDigits, hexDigits } from '../context.js';

export function acquirerIds(now: string): AcquirerIds {
  return {
    authorizationCode: randomDigits(6),
    receipt: randomDigits(12),
    stan: randomDigits(6),
    // 20 hex digits, upper case (what the first 20 of a UUIDv4 without dashes were: the 13th is a 4).
    acquirerTransactionId: hexDigits(12) + '4' + hexDigits(7),
    batch: Number(now.slice(0, 10).replace(/-/g, '')),
  };
}
