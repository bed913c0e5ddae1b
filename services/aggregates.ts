// The aggregates: how each kind of stream folds into its state (one initial state, one evolve,
// the type guard of its events), in one place, for the command handler (command-handler.ts) and
// for every read that folds a stream. Also the expected revision after a read, and reads checked
// for their owner.
import {
  isAccountIdentifierReserved, isCheckoutEvent, isOrderEvent, isSessionEvent, isTokenEvent, isTransactionReferenceEvent, ownedByStreamOwner,
  type AccountIdentifierReserved, type CheckoutEvent, type SessionEvent, type TransactionReferenceEvent,
} from '../domain/events.js';
import { evolveCheckout, initialCheckoutState, type CheckoutState } from '../domain/session/checkout.js';
import { evolveReference, type ReferenceState } from '../domain/order/transaction-reference.js';
import { evolveOrder, initialOrderState, type OrderState } from '../domain/order/order-state.js';
import { evolveSession, initialSessionState, type SessionState } from '../domain/session/session.js';
import { evolveToken, initialTokenState, type CardToken, type TokenState } from '../domain/token/token.js';
import type { EventStore, RecordedEvent } from '../store/event-store.js';

/** An event as a stream gives it back (a RecordedEvent, or a domain event not yet stored). */
export type Typed = { readonly type: string; readonly data: unknown };

/** How a stream becomes a state: `handles` picks the aggregate's events (other types in the stream are skipped). */
export interface Aggregate<State, Event extends Typed> {
  readonly initialState: () => State;
  readonly evolve: (state: State, event: Event) => State;
  readonly handles: (event: Typed) => event is Event;
}

/** The state of a stream: its aggregate's events folded with evolve from the initial state. */
export const fold = <State, Event extends Typed>(aggregate: Aggregate<State, Event>, events: readonly Typed[]): State =>
  events.reduce((state, e) => (aggregate.handles(e) ? aggregate.evolve(state, e) : state), aggregate.initialState());

/** An order (PaymentStarted, PaymentRecorded, PaymentOutcomeResolved): domain/order/order-state.ts. */
export const orderAggregate = { initialState: initialOrderState, evolve: evolveOrder, handles: isOrderEvent };
/** A token of any kind (card, bank account, wallet billing agreement): domain/token/token-state.ts. */
export const tokenAggregate = { initialState: initialTokenState, evolve: evolveToken, handles: isTokenEvent };
/** A session: domain/session/session.ts. */
export const sessionAggregate = { initialState: initialSessionState, evolve: evolveSession, handles: isSessionEvent };
/** A Hosted Checkout session: the session and its checkout, one stream (domain/session/checkout.ts). */
export const checkoutAggregate: Aggregate<CheckoutState, SessionEvent | CheckoutEvent> = {
  initialState: initialCheckoutState, evolve: evolveCheckout, handles: (e: Typed): e is SessionEvent | CheckoutEvent => isSessionEvent(e) || isCheckoutEvent(e),
};
/** An account identifier's reservation: its latest claim (the token it names), if any. */
export const reservationAggregate: Aggregate<AccountIdentifierReserved['data'] | undefined, AccountIdentifierReserved> = {
  initialState: () => undefined, evolve: (_, e) => e.data, handles: isAccountIdentifierReserved,
};
/** A transaction reference of version 3: the requests of one transaction that hold it (domain/order/transaction-reference.ts). */
export const transactionReferenceAggregate: Aggregate<ReferenceState, TransactionReferenceEvent> = {
  initialState: () => undefined, evolve: evolveReference, handles: isTransactionReferenceEvent,
};

export const foldOrder = (events: readonly Typed[]): OrderState => fold(orderAggregate, events);
export const foldSession = (events: readonly Typed[]): SessionState => fold(sessionAggregate, events);
export const foldCheckout = (events: readonly Typed[]): CheckoutState => fold(checkoutAggregate, events);
/** Every kind of token (card, bank account, wallet billing agreement). */
export const foldTokenState = (events: readonly Typed[]): TokenState => fold(tokenAggregate, events);

export type CardTokenState = Exclude<TokenState, { status: 'VALID' }> | CardToken;

/** The token as a card that can pay: a token holding other details is no card token (NONE). */
export const foldToken = (events: readonly Typed[]): CardTokenState => {
  const state = foldTokenState(events);
  if (state.status !== 'VALID') return state;
  return state.card ? state : { status: 'NONE' };
};

/**
 * The expected revision for an append after reading `events` of a stream: its last event's (a
 * stream of a reset merchant is read from its epoch on, its revisions kept: store/epochs.ts).
 */
export const revisionAfter = (events: readonly RecordedEvent[]): 'no_stream' | bigint =>
  events.length === 0 ? 'no_stream' : (events[events.length - 1] as RecordedEvent).revision;

/** A stream whose events name another owner than its name does (never expected: a failure, not an answer). */
export class StreamOwnershipError extends Error {
  override name = 'StreamOwnershipError';
  constructor(readonly stream: string) { super(`events of stream '${stream}' name another owner than the stream`); }
}

/**
 * A stream read on behalf of its owner (a merchant's order or session, a repository's token): every
 * event must name the owner the stream's name names, or nothing of it is used.
 */
export async function readOwnStream(store: EventStore, stream: string): Promise<RecordedEvent[]> {
  return owned(stream, await store.readStream(stream));
}

/** The events of `stream` when every one names the owner its name names; else StreamOwnershipError. */
function owned<T extends readonly RecordedEvent[]>(stream: string, events: T): T {
  if (!ownedByStreamOwner(stream, events)) throw new StreamOwnershipError(stream);
  return events;
}

/** readOwnStream without a promise where the store can answer at once (its readStreamSoon). */
export function readOwnStreamSoon(store: EventStore, stream: string): readonly RecordedEvent[] | Promise<readonly RecordedEvent[]> {
  const events = store.readStreamSoon(stream);
  return events instanceof Promise ? events.then((read) => owned(stream, read)) : owned(stream, events);
}

/**
 * The stream as the store's memory holds it, checked for its owner like readOwnStreamSoon, without
 * a promise and without asking the server (EventStore.readStreamUnconfirmed, promise 8): only for
 * a decision whose append carries the stream's revision as its condition (or as its expected
 * revision: the command handler's own stream). undefined: the store
 * offers no such read, or does not hold the stream (read it the careful way).
 */
export function readOwnStreamUnconfirmed(store: EventStore, stream: string): readonly RecordedEvent[] | undefined {
  const events = store.readStreamUnconfirmed?.(stream);
  return events === undefined ? undefined : owned(stream, events);
}
