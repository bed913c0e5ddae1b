// Pay with token: read the order, decide, append with the order's revision as the expected one,
// bring the read models up to date, answer. A conflict (another request wrote the order first)
// re-reads and decides again: an identical repeat then finds its transaction recorded and answers
// with it, so a payment is never recorded twice. A new order is not read at all (see the loop).
//
// "In progress" works across processes sharing a store: when a merchant rule adds acquirer
// latency, a PaymentStarted holds the order (until its lockExpiresAt) before the wait and the
// PaymentRecorded follows it. Meanwhile another transaction on the order is answered
// LOCK_FAILURE (not recorded) and an identical repeat waits for the record and answers with it.
import { randomUUID } from 'node:crypto';
import { streams } from '../domain/events.js';
import { decidePay, evolveOrder, type AcquirerIds } from '../domain/order.js';
import type { MerchantProfile } from '../merchants.js';
import type { PayBody, PayParams } from '../schemas/pay.js';
import { WrongExpectedRevisionError } from '../store/event-store.js';
import { revisionAfter, readOwnStream } from './aggregates.js';
import { Busy, randomDigits, toEventData, type RequestMeta } from './context.js';
import { SimulatedFault } from './faults.js';
import type { Gateway } from './gateway.js';
import { foldOrderStream, orderView } from './order-stream.js';
import { payFacts } from './pay-request.js';
import { payResponse } from './responses.js';
import { reserveTransactionReference } from './transaction-references.js';

export { amountExplanation } from './pay-request.js';

const MAX_CONFLICTS = 20;
/** How often a repeat of a payment in progress looks for its record. */
const POLL_MS = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function acquirerIds(now: string): AcquirerIds {
  return {
    authorizationCode: randomDigits(6),
    receipt: randomDigits(12),
    stan: randomDigits(6),
    acquirerTransactionId: randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase(),
    batch: Number(now.slice(0, 10).replace(/-/g, '')),
  };
}

export async function payWithToken(gateway: Gateway, merchant: MerchantProfile, params: PayParams, body: PayBody, meta: RequestMeta) {
  const facts = await payFacts(gateway, merchant, params, body);
  const stream = streams.order(merchant.id, params.orderid);
  const attemptId = randomUUID();
  const { correlationId } = body;
  let referenceClaimed = facts.transactionReference === undefined;
  let guessed = false;
  let conflicts = 0;
  while (conflicts < MAX_CONFLICTS) {
    // Most payments open a new order. When the store would have to read the order's stream from
    // disk, the first decision is made on an empty order, and the append (expected: no stream)
    // checks that guess: an order that exists refuses it, and the loop reads the order. A guess
    // only ever leads to that append (no reference to claim, nothing answered from it).
    const guess: boolean = !guessed && referenceClaimed && gateway.store.holdsStream?.(stream) === false;
    guessed ||= guess;
    const history = guess ? [] : await readOwnStream(gateway.store, stream);
    const state = foldOrderStream(history);
    const now = new Date().toISOString();
    const decision = decidePay(state, { ...facts, attemptId, ids: acquirerIds(now), now });
    // On an empty order decidePay refuses nothing (its refusals need a recorded transaction, a
    // lock or a currency); an answer without an append (a simulated SERVER_BUSY) needs the order.
    if (guess && decision.kind !== 'recorded' && decision.kind !== 'started') continue;
    switch (decision.kind) {
      case 'replayed':
      case 'locked':
        return payResponse(decision.payment, orderView(state, now), correlationId);
      case 'inFlight':
        await sleep(POLL_MS);
        continue;
      case 'busy':
        await sleep(decision.latencyMs);
        throw new SimulatedFault('SERVER_BUSY');
      case 'started':
      case 'recorded':
        break;
    }
    if (!referenceClaimed && facts.transactionReference !== undefined) {
      const claim = { merchantId: merchant.id, orderId: params.orderid, transactionId: params.transactionid, reference: facts.transactionReference };
      await reserveTransactionReference(gateway, claim, meta, now);
      referenceClaimed = true;
    }
    let appended: bigint;
    try {
      appended = (await gateway.store.append(stream, toEventData(decision.events, meta, now), { expectedRevision: revisionAfter(history) })).position;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      conflicts += 1;
      continue;
    }
    if (decision.kind === 'started') {
      await sleep(decision.latencyMs);
      continue;
    }
    await gateway.readModels.catchUp(appended);
    // The payment is recorded; a merchant rule makes this first answer a lost one (500).
    if (decision.payment.fault === 'SERVER_FAILED') throw new SimulatedFault('SERVER_FAILED');
    const after = decision.events.reduce(evolveOrder, state);
    return payResponse(decision.payment, orderView(after, now), correlationId);
  }
  throw new Busy(`Order '${params.orderid}' is being changed by too many requests at once`);
}
