// The test-control API's "resolve this UNKNOWN now": a transaction answered UNKNOWN gets the final
// outcome a test chose, at once, instead of the rule's after UNKNOWN_RESOLUTION_DELAY_MS
// (services/order/unknown-resolver.ts). One append to the order stream: UnknownResolvedByTest (what
// the test asked) and the PaymentOutcomeResolved it caused, decided by the same decider as the
// reactor's (its rule names the test), so totals, the order's status, the read models, identical
// repeats and the notification follow as for any resolution; the reactor then finds it resolved.
import { Refusal } from '../../domain/errors.js';
import { streams, type OrderEvent, type UnknownResolvedByTest } from '../../domain/events.js';
import { decideResolveUnknown } from '../../domain/order/order-resolution.js';
import type { OrderState } from '../../domain/order/order-state.js';
import { CODE_ANSWERS, GATEWAY_CODES, type GatewayCode } from '../../domain/order/triggers.js';
import type { MerchantProfile } from '../../merchants.js';
import { orderAggregate, type Aggregate, type Typed } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { transactionReferences } from '../order/acquirer-ids.js';

/**
 * The outcomes a test may choose: APPROVED, or a decline the acquirer answers (an UNKNOWN is the
 * acquirer's silence, so its final outcome is the acquirer's: no code the gateway decides alone).
 */
export const CHOOSABLE_OUTCOMES: readonly GatewayCode[] = GATEWAY_CODES.filter((code) =>
  code === 'APPROVED' || (CODE_ANSWERS[code].result === 'FAILURE' && CODE_ANSWERS[code].acquirer !== undefined));

type Step = OrderEvent | UnknownResolvedByTest;

/** The order, with the test's request in its stream (skipped by the order's fold). */
const orderWithTests: Aggregate<OrderState, Step> = {
  initialState: orderAggregate.initialState,
  evolve: (state, event) => (event.type === 'UnknownResolvedByTest' ? state : orderAggregate.evolve(state, event)),
  handles: (event: Typed): event is Step => event.type === 'UnknownResolvedByTest' || orderAggregate.handles(event),
};

/** The outcome of the transaction `transactionId` of the order, if the order has it. */
function resultOf(state: Extract<OrderState, { exists: true }>, transactionId: string): string | undefined {
  return (state.transactions.get(transactionId) ?? state.modern?.operations.get(transactionId))?.outcome.result;
}

export async function resolveUnknownNow(gateway: Gateway, merchant: MerchantProfile, orderId: string, transactionId: string, gatewayCode: GatewayCode, meta: RequestMeta) {
  const { authorizationCode } = transactionReferences(merchant.id, orderId, transactionId);
  const rule = `chosen through the test-control API: ${gatewayCode}`;
  return handleCommand(gateway, streams.order(merchant.id, orderId), orderWithTests, (state, { now }) => {
    if (!state.exists) throw new Refusal(404, `No order '${orderId}' of merchant ${merchant.id}`, 'orderId');
    const result = resultOf(state, transactionId);
    if (result === undefined) throw new Refusal(404, `No transaction '${transactionId}' on order ${orderId}`, 'transactionId');
    if (result !== 'UNKNOWN') throw new Refusal(409, `Transaction '${transactionId}' of order ${orderId} is not UNKNOWN (its result is ${result}): only an UNKNOWN outcome is made final`, 'transactionId');
    const resolved = decideResolveUnknown({ type: 'ResolveUnknownPayment', transactionId, authorizationCode, now, chosen: { gatewayCode, rule } }, state);
    const requested: UnknownResolvedByTest = { type: 'UnknownResolvedByTest', data: { merchantId: merchant.id, orderId, transactionId, gatewayCode, requestedAt: now } };
    return {
      events: [requested, ...resolved],
      answer: () => {
        const { totalsAfter: _totals, ...data } = (resolved[0] as (typeof resolved)[number]).data;
        return data;
      },
    };
  }, { meta: { ...meta, merchantId: merchant.id }, ownStream: true });
}
