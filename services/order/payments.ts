// Pay with token: read the order, decide, append with the order's revision as the expected one,
// bring the read models up to date, answer (services/command-handler.ts). A conflict (another
// request wrote the order first) re-reads and decides again: an identical repeat then finds its
// transaction recorded and answers with it, so a payment is never recorded twice. A new order is
// not read at all (see guessNew below).
//
// "In progress" works across processes sharing a store: when a merchant rule adds acquirer
// latency, a PaymentStarted holds the order (until its lockExpiresAt) before the wait and the
// PaymentRecorded follows it. Meanwhile another transaction on the order is answered
// LOCK_FAILURE (not recorded) and an identical repeat waits for the record and answers with it.
import { randomUUID } from 'node:crypto';
import { setMostRecent } from '../../lib/bounded-map.js';
import { frozenJsonCopy } from '../../lib/json.js';
import { streams, type OrderEvent } from '../../domain/events.js';
import type { OrderState } from '../../domain/order/order-state.js';
import { decidePay, type AcquirerIds, type PayWithToken } from '../../domain/order/order.js';
import type { MerchantProfile } from '../../merchants.js';
import type { PayBody, PayParams } from '../../schemas/pay.js';
import { orderAggregate } from '../aggregates.js';
import { handleCommand, type Attempt, type Decision } from '../command-handler.js';
import { SimulatedFault } from '../../domain/errors.js';
import type { RequestMeta } from '../context.js';
import { acquirerIds, transactionReferences, type TransactionReferences } from './acquirer-ids.js';
import type { Gateway } from '../gateway.js';
import { orderView } from './order-stream.js';
import { payFacts } from './pay-request.js';
import { payResponse } from './responses.js';
import { referenceClaimer, type ReferenceClaimer } from './transaction-references.js';
import { busyAfter, POLL_MS } from './holds.js';

export { amountExplanation } from './pay-request.js';

const MAX_CONFLICTS = 20;
const NO_IDS: AcquirerIds = { authorizationCode: '', receipt: '', stan: '', acquirerTransactionId: '', batch: 0 };

/**
 * The answers of recently repeated payments, per store (a process may host several gateways),
 * for their further identical repeats, while the store holds the order's stream in memory at the
 * revision of the answer (nothing appended to the order since, by this process or another: another
 * writer empties the store's cache). What the command handler would answer then, without reading
 * the order, folding it and deciding again (issue 17). Bounded like the store's stream cache.
 *
 * An answer is kept once it was asked for again (a repeat decided as `replayed`), not when the
 * payment is recorded: most payments are never repeated, and keeping every first answer cost each
 * pay its entry and the garbage collector its text. The first repeat reads the order (from the
 * store's memory, where it is) and decides; the ones after it are answered from here.
 *
 * A repeat is recognised two ways: by the same body text, token and masking with the token's
 * stream at the same revision too (nothing to check again: not even the token or the fingerprint,
 * whose inputs are those bytes and that token); or, after the token is read and the fingerprint
 * computed, by the same fingerprint, correlation id and masking.
 */
interface Answered {
  fingerprint: string; revision: bigint; correlationId: string | undefined; masking: string;
  /** The answer as its caller takes it: the route's text (most: nothing else of it is kept), or the object. */
  answer: string | PayResponse;
  bodyText: string; tokenid: string; tokenRevision: bigint;
  /** `bodyText` parsed (frozen: later repeats of that text share it). */
  body: PayBody;
}
const ANSWERED = new WeakMap<object, Map<string, Answered>>();
/** A payment's key among the recent answers: its order's stream and its transaction id. */
const answerKey = (orderStream: string, transactionId: string) => `${orderStream}\u0000${transactionId}`;
const MAX_ANSWERED = 2_000;

/** The store's map in `maps` (made on first use: a process may host several gateways). */
function ofStore<V>(maps: WeakMap<object, Map<string, V>>, store: object): Map<string, V> {
  let map = maps.get(store);
  if (!map) {
    map = new Map();
    maps.set(store, map);
  }
  return map;
}

function answeredBy(gateway: Gateway): Map<string, Answered> | undefined {
  return gateway.cachedRevision ? ofStore(ANSWERED, gateway.store) : undefined;
}

function remember(answered: Map<string, Answered> | undefined, key: string, entry: Answered): void {
  if (answered) setMostRecent(answered, key, entry, MAX_ANSWERED);
}

/**
 * Orders this process knows exist (it recorded or read a payment on them), per store, for a store
 * that cannot tell what it holds (no cachedRevision: PostgreSQL, KurrentDB): a payment on one is
 * not guessed new, so an identical repeat reads its order at once instead of an append refused
 * first. A hint only (an order guessed new that exists is refused by the append and read), bounded.
 */
const KNOWN_ORDERS = new WeakMap<object, Map<string, true>>();
const MAX_KNOWN_ORDERS = 10_000;

function knownOrders(gateway: Gateway): Map<string, true> | undefined {
  return gateway.cachedRevision ? undefined : ofStore(KNOWN_ORDERS, gateway.store);
}

export type PayResponse = ReturnType<typeof payResponse>;

const maskingOf = (merchant: MerchantProfile) => merchant.repository.cardNumberMasking ?? '6.4';

/**
 * The kept answer's text when this request is an identical repeat of a recent payment: the same
 * body text, token and masking, and nothing appended to the token or the order since (the store
 * holds both at the revisions of the answer).
 */
function repeatedAnswerText(gateway: Gateway, merchant: MerchantProfile, params: PayParams, bodyText: string): string | undefined {
  const answered = ANSWERED.get(gateway.store);
  if (answered === undefined || answered.size === 0 || bodyText.length === 0) return undefined;
  const stream = streams.order(merchant.id, params.orderid);
  const recent = answered.get(answerKey(stream, params.transactionid));
  return recent !== undefined && typeof recent.answer === 'string' && recent.bodyText === bodyText && recent.tokenid === params.tokenid &&
    recent.masking === maskingOf(merchant) &&
    gateway.cachedRevision?.(streams.token(merchant.repository.id, params.tokenid)) === recent.tokenRevision &&
    gateway.cachedRevision(stream) === recent.revision
    ? recent.answer : undefined;
}

/**
 * The body of a recent repeat whose text `bodyText` is, as parsed then (for the route's body
 * parser: an identical repeat's text is not parsed again, issue 17). The same text parses to the
 * same body whatever the request: the key only finds the one to compare with. `params` are the
 * request's as received, not yet validated.
 */
export function repeatedBody(gateway: Gateway, merchant: MerchantProfile, params: { orderid?: string; transactionid?: string }, bodyText: string): PayBody | undefined {
  const answered = ANSWERED.get(gateway.store);
  if (bodyText.length === 0 || answered === undefined || answered.size === 0) return undefined;
  const found = answered.get(answerKey(streams.order(merchant.id, params.orderid ?? ''), params.transactionid ?? ''));
  return found !== undefined && found.bodyText === bodyText ? found.body : undefined;
}

/**
 * The payment's answer as an object. `requestMeta` is asked for only when the payment is decided
 * (not for a repeat answered from the recent answers).
 */
export function payWithToken(gateway: Gateway, merchant: MerchantProfile, params: PayParams, body: PayBody, requestMeta: RequestMeta | (() => RequestMeta)): Promise<PayResponse> {
  return pay(gateway, merchant, params, body, requestMeta, undefined, (response) => response);
}

/**
 * The payment's answer as the text `serialize` writes (the route's response schema): an identical
 * repeat answered from the recent answers gets that text again, not written anew, and only the
 * text is kept (issue 17); it is returned at once, not as a promise (the route answers it without
 * a turn of the microtask queue). `bodyText`: the body as received.
 */
export function payWithTokenText(gateway: Gateway, merchant: MerchantProfile, params: PayParams, body: PayBody, requestMeta: RequestMeta | (() => RequestMeta), bodyText: string, serialize: (response: PayResponse) => string): string | Promise<string> {
  return repeatedAnswerText(gateway, merchant, params, bodyText) ?? pay(gateway, merchant, params, body, requestMeta, bodyText, serialize);
}

async function pay<A extends string | PayResponse>(gateway: Gateway, merchant: MerchantProfile, params: PayParams, body: PayBody, requestMeta: RequestMeta | (() => RequestMeta), bodyText: string | undefined, form: (response: PayResponse) => A): Promise<A> {
  const stream = streams.order(merchant.id, params.orderid);
  const masking = maskingOf(merchant);
  const answered = answeredBy(gateway);
  const key = answerKey(stream, params.transactionid);
  const found = answered?.get(key);
  // An answer kept in the other form (a text, asked for as an object) is not used. (An identical
  // repeat of the same text, token and masking was answered before: payWithTokenText.)
  const recent = found !== undefined && typeof found.answer === (bodyText === undefined ? 'object' : 'string') ? found : undefined;
  const known = payFacts(gateway, merchant, params, body);
  const { facts, tokenRevision } = known instanceof Promise ? await known : known;
  const { correlationId } = body;
  if (recent && recent.fingerprint === facts.requestFingerprint && recent.correlationId === correlationId && recent.masking === masking &&
    gateway.cachedRevision?.(stream) === recent.revision) return recent.answer as A;
  const meta = typeof requestMeta === 'function' ? requestMeta() : requestMeta;
  const answer = (payment: Parameters<typeof payResponse>[0], state: OrderState, now: string): A =>
    form(payResponse(payment, orderView(state, now, payment.transactionId), correlationId, masking));
  // Only a merchant rule's latency holds the order (PaymentStarted names this attempt): no id to
  // draw without rules.
  const attemptId = (facts.rules?.length ?? 0) > 0 ? randomUUID() : undefined;
  const reference = referenceClaimer(gateway, { merchantId: merchant.id, orderId: params.orderid, transactionId: params.transactionid, reference: facts.transactionReference }, meta);
  // One command for every attempt, its time and batch set anew at each (a copy of the facts per
  // attempt cost µs on every pay: issue 17).
  const command: PayWithToken = Object.assign(facts, { attemptId, ids: NO_IDS, now: '' });
  const references = transactionReferences(merchant.id, params.orderid, params.transactionid);
  const existing = knownOrders(gateway);
  const keep = (response: A, revision: bigint) => remember(answered, key, {
    fingerprint: facts.requestFingerprint, revision, correlationId, masking, answer: response, bodyText: bodyText ?? '', tokenid: params.tokenid, tokenRevision,
    body: frozenJsonCopy(body) as PayBody,
  });
  const busy = `Order '${params.orderid}' is being changed by too many requests at once`;
  // (`return await`: the handler's promise is adopted at once, not through a thenable job's extra turns.)
  return await reference.settle(handleCommand(gateway, stream, orderAggregate, payDecider({ stream, command, references, reference, existing, answer, keep }), {
    meta,
    ownStream: true,
    // Most payments open a new order. When the store would have to read the order's stream (from
    // disk; or from a server, as every read of a store that cannot tell what it holds: PostgreSQL,
    // KurrentDB: unless this process knows the order exists), the first decision is made on an
    // empty order, and the append (expected: no stream) checks that guess: an order that exists
    // refuses it, and the order is read. On an empty order decidePay refuses nothing (its refusals
    // need a recorded transaction, a lock or a currency); an answer without an append (a simulated
    // SERVER_BUSY) is made on the order as read. A guess is never made before the reference is
    // claimed: nothing is claimed on a guessed state.
    guessNew: (name) => reference.claimed && (gateway.cachedRevision ? gateway.cachedRevision(name) === undefined : existing?.has(name) !== true),
    attempts: MAX_CONFLICTS,
    exhausted: () => reference.gaveUp(busy),
  }));
}

interface PayDecider<A> {
  stream: string;
  command: PayWithToken;
  /** The acquirer's references of this transaction (acquirer-ids.ts). */
  references: TransactionReferences;
  reference: ReferenceClaimer;
  /** The orders known to exist (stores that cannot tell), or undefined. */
  existing: Map<string, true> | undefined;
  answer: (payment: Parameters<typeof payResponse>[0], state: OrderState, now: string) => A;
  /** Keep a repeat's answer among the recent answers, at the order's revision. */
  keep: (response: A, revision: bigint) => void;
}

/**
 * The command handler's decide for one payment: the order's decision (decidePay), the
 * transaction.reference held before the first append that records or holds the order (no promise
 * when there is nothing left to hold: most payments), and what the hold is told of the record.
 */
function payDecider<A>({ stream, command, references, reference, existing, answer, keep }: PayDecider<A>) {
  // `records`: the decision appends the record (whether it is written is unknown until its answer).
  const claimed = <T>(now: string, decision: T, records = false): T | Promise<T> => {
    const held = () => {
      if (records) reference.recording();
      return decision;
    };
    return reference.claimed ? held() : reference.claim(now).then(held);
  };
  return (state: OrderState, { now, history }: Attempt): Decision<OrderState, OrderEvent, A> | Promise<Decision<OrderState, OrderEvent, A>> => {
    reference.deciding();
    command.ids = acquirerIds(references, now);
    command.now = now;
    const decision = decidePay(state, command);
    // Read with events, or about to be written: the order exists from now on.
    if (existing && (history.length > 0 || decision.kind === 'recorded' || decision.kind === 'started')) setMostRecent(existing, stream, true, MAX_KNOWN_ORDERS);
    switch (decision.kind) {
      case 'replayed':
        return {
          events: [],
          answer: () => {
            const response = answer(decision.payment, state, now);
            keep(response, BigInt(history.length - 1));
            return response;
          },
        };
      case 'locked':
        return { events: [], answer: () => answer(decision.payment, state, now) };
      case 'inFlight':
        return { events: [], again: POLL_MS };
      case 'busy':
        return { events: [], answer: busyAfter(decision.latencyMs) };
      case 'started':
        return claimed(now, { events: decision.events, again: decision.latencyMs });
      case 'recorded':
        return claimed(now, {
          events: decision.events,
          answer: (after: OrderState) => {
            reference.recorded();
            // The payment is recorded; a merchant rule makes this first answer a lost one (500).
            if (decision.payment.fault === 'SERVER_FAILED') throw new SimulatedFault('SERVER_FAILED');
            return answer(decision.payment, after, now);
          },
        }, true);
    }
  };
}
