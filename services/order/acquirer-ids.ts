// The acquirer's references of a transaction (authorization code, receipt, STAN, its own id, the
// batch of the day), drawn for every decision of Pay with token and of the order API.
import { randomUUID } from 'node:crypto';
import type { AcquirerIds } from '../../domain/order/order.js';
import { randomDigits } from '../context.js';

export function acquirerIds(now: string): AcquirerIds {
  return {
    authorizationCode: randomDigits(6),
    receipt: randomDigits(12),
    stan: randomDigits(6),
    acquirerTransactionId: randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase(),
    batch: Number(now.slice(0, 10).replace(/-/g, '')),
  };
}
