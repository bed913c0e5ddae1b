// The one order path: every transaction on an order, version 3's Pay with token and the order
// API's PAY, AUTHORIZE, CAPTURE, REFUND, VOID and VERIFY alike, is this command on the order's
// stream (services/command-handler.ts): read the order, decide (domain/order/order.ts decide),
// append with the order's revision as the expected one, answer. The two paths differ only in how
// they make the command (pay-request.ts, order-api-request.ts) and write the answer. A command
// made from another stream read without asking the server (the token of Pay with token, and of
// the order API's PAY, AUTHORIZE and VERIFY, where the store offers that) is decided under
// read-beside.ts's rules. The order itself is read so too (the command handler's own stream: its
// append's expected revision checks it; an answer without an append, or a refusal, made on it is
// made again on the order read the careful way).
//
// A conflict (another request wrote the order first) re-reads and decides again: an identical
// repeat then finds its transaction recorded and answers with it, so a transaction is never
// recorded twice. "In progress" works across processes sharing a store: when a merchant rule
// adds acquirer latency, a PaymentStarted holds the order (until its lockExpiresAt) before the
// wait and the record follows it; meanwhile another transaction is answered LOCK_FAILURE (not
// recorded) and an identical repeat waits for the record and answers with it.
import { randomUUID } from 'node:crypto';
import { SimulatedFault } from '../../domain/errors.js';
import { streams, type OrderEvent } from '../../domain/events.js';
import { decide, type AcquirerIds, type OrderState, type RecordOf, type TransactionCommand } from '../../domain/order/order.js';
import { orderAggregate } from '../aggregates.js';
import { handleCommand, type Attempt, type CONFLICT, type Decision } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { acquirerIds, transactionReferences, type TransactionReferences } from './acquirer-ids.js';
import { decideBeside, type ReadBeside } from './read-beside.js';
import { referenceClaimer, type ReferenceClaimer } from './transaction-references.js';

/** A command without what each attempt sets anew: its time and the acquirer's references. */
export type CommandFacts<C extends TransactionCommand> = C extends TransactionCommand ? Omit<C, 'ids' | 'now'> : never;

/** A transaction as a route asks for it: the command, and how its answer is written. */
export interface OrderRequest<C extends TransactionCommand, A> {
  readonly facts: CommandFacts<C>;
  /** transaction.reference, when it must be unique across the merchant's transactions (version 3: transaction-references.ts). */
  readonly uniqueReference: string | undefined;
  /** The answer with `transaction` as recorded (or refused by the hold) and the order as `state`; `now`: the attempt's time. */
  readonly answer: (transaction: RecordOf<C>, state: OrderState, now: string) => A;
  /** Told of an answer to an identical repeat (a replayed record) and the order's revision it was read at. */
  readonly replayed?: (answer: A, orderRevision: bigint) => void;
  /**
   * Another stream `facts` were made from (a token's, named by the request), when it may have been read
   * unconfirmed: decided under read-beside.ts's rules; confirming it makes `facts` (the command) anew.
   */
  readonly depends?: ReadBeside | undefined;
}

/** Conflicts on one order before the request gives up (503 SERVER_BUSY: the client repeats it). */
const MAX_CONFLICTS = 20;
/** How often a repeat of a transaction in progress looks for its record. */
const POLL_MS = 20;
const NO_IDS: AcquirerIds = { authorizationCode: '', receipt: '', stan: '', acquirerTransactionId: '', batch: 0 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Commands that may open an order: decided on an order not yet recorded, they refuse nothing. */
const mayOpenOrder = (type: TransactionCommand['type']) =>
  type === 'PayWithToken' || type === 'PAY' || type === 'AUTHORIZE' || type === 'VERIFY' || type === 'INITIATE_AUTHENTICATION';

/**
 * The transaction's answer. Not async: the command handler's promise (in its claim's settle, when
 * the transaction has a reference) is the answer itself, no promise of this function's around it;
 * a throw is a rejection, as from an async function.
 */
export function handleOrderCommand<C extends TransactionCommand, A>(gateway: Gateway, request: OrderRequest<C, A>, meta: RequestMeta): Promise<A> {
  try {
    return orderCommand(gateway, request, meta);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

function orderCommand<C extends TransactionCommand, A>(gateway: Gateway, request: OrderRequest<C, A>, meta: RequestMeta): Promise<A> {
  const { facts } = request;
  const { merchantId, orderId, transactionId } = facts;
  // Only a merchant rule's latency holds the order (PaymentStarted names this attempt): no id to draw without rules.
  const attemptId = 'rules' in facts && (facts.rules?.length ?? 0) > 0 ? randomUUID() : undefined;
  // One command for every attempt, its time and references set anew at each. (Set member by
  // member: Object.assign would make and copy an object on every transaction.)
  const command = facts as unknown as C;
  command.attemptId = attemptId;
  command.ids = NO_IDS;
  command.now = '';
  const references = transactionReferences(merchantId, orderId, transactionId);
  const reference = referenceClaimer(gateway, { merchantId, orderId, transactionId, reference: request.uniqueReference }, meta);
  const opens = mayOpenOrder(command.type);
  return reference.settle(handleCommand(gateway, streams.order(merchantId, orderId), orderAggregate, orderDecider(command, references, reference, request), {
    meta,
    ownStream: true,
    // Most payments open a new order: unless the store knows the order's revision without a read,
    // the first decision is made on an empty order and the append (expected: no stream) checks
    // that guess; an order that exists refuses it, and is read. Never before the reference is
    // claimed: nothing is claimed on a guessed state. Not an order the store's memory holds (a
    // second transaction of it: 3-D Secure then PAY): that is read from memory, not guessed away.
    guessNew: (name) => opens && reference.claimed && typeof gateway.store.knownRevision(name) !== 'bigint' &&
      gateway.store.readStreamUnconfirmed?.(name) === undefined,
    attempts: MAX_CONFLICTS,
    exhausted: () => reference.gaveUp(`Order '${orderId}' is being changed by too many requests at once`),
  }));
}

type Decided<A> = Decision<OrderState, OrderEvent, A> | typeof CONFLICT;

/**
 * The command handler's decide for one transaction: the order's decision, as the handler's
 * (append, wait, answer), with transaction.reference held before the first append that records
 * or holds the order (no promise when there is nothing left to hold: most transactions).
 */
function orderDecider<C extends TransactionCommand, A>(command: C, references: TransactionReferences, reference: ReferenceClaimer, request: OrderRequest<C, A>) {
  const decideOrder = orderDecision(command, references, reference, request);
  const { depends } = request;
  return (state: OrderState, attempt: Attempt): Decided<A> | Promise<Decided<A>> => {
    // First: a refused append (a conflict, a failed condition) wrote nothing.
    reference.deciding();
    return depends === undefined ? decideOrder(state, attempt) : decideBeside(depends, attempt, () => decideOrder(state, attempt));
  };
}

/** The order's decision for one attempt, as the handler's. */
function orderDecision<C extends TransactionCommand, A>(command: C, references: TransactionReferences, reference: ReferenceClaimer, { answer, replayed }: OrderRequest<C, A>) {
  // `records`: the decision appends the record (whether it is written is unknown until its answer).
  const claimed = <T>(now: string, decision: T, records = false): T | Promise<T> => {
    const held = () => {
      if (records) reference.recording();
      return decision;
    };
    return reference.claimed ? held() : reference.claim(now).then(held);
  };
  return (state: OrderState, { now, history }: Attempt): Decision<OrderState, OrderEvent, A> | Promise<Decision<OrderState, OrderEvent, A>> => {
    command.ids = acquirerIds(references, now);
    command.now = now;
    const decision = decide(command, state);
    switch (decision.kind) {
      case 'replayed':
        return {
          events: [],
          answer: () => {
            const repeated = answer(decision.transaction, state, now);
            replayed?.(repeated, history.at(-1)?.revision ?? -1n);
            return repeated;
          },
        };
      case 'locked':
        return { events: [], answer: () => answer(decision.transaction, state, now) };
      case 'inFlight':
        return { events: [], again: POLL_MS };
      case 'busy':
        // A rule's simulated SERVER_BUSY: a 503 after the rule's latency, nothing recorded.
        return { events: [], answer: async () => { await sleep(decision.latencyMs); throw new SimulatedFault('SERVER_BUSY'); } };
      case 'started':
        return claimed(now, { events: decision.events, again: decision.latencyMs });
      case 'recorded':
        return claimed(now, {
          events: decision.events,
          answer: (after: OrderState) => {
            reference.recorded();
            // Recorded; a merchant rule makes this first answer a lost one (500): a repeat reads it.
            if (decision.fault === 'SERVER_FAILED') throw new SimulatedFault('SERVER_FAILED');
            return answer(decision.transaction, after, now);
          },
        }, true);
    }
  };
}
