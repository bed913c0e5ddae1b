// Folding a stream's recorded events into a token's state (orders: services/order-stream.ts).
import { ownedByStreamOwner, TOKEN_EVENT_TYPES, type TokenEvent } from '../domain/events.js';
import { evolveToken, initialTokenState, type CardToken, type TokenState } from '../domain/token.js';
import type { EventStore, RecordedEvent } from '../store/event-store.js';

/** Every kind of token (card, bank account, wallet billing agreement). */
export const foldTokenState = (events: readonly RecordedEvent[]): TokenState =>
  events.reduce((state, e) => (TOKEN_EVENT_TYPES.has(e.type) ? evolveToken(state, e as unknown as TokenEvent) : state), initialTokenState());

export type CardTokenState = Exclude<TokenState, { status: 'VALID' }> | CardToken;

/** The token as a card that can pay: a token holding other details is no card token (NONE). */
export const foldToken = (events: readonly RecordedEvent[]): CardTokenState => {
  const state = foldTokenState(events);
  if (state.status !== 'VALID') return state;
  return state.card ? state : { status: 'NONE' };
};

/** The expected revision for an append after reading `events` of a stream. */
export const revisionAfter = (events: readonly RecordedEvent[]): 'no_stream' | bigint =>
  events.length === 0 ? 'no_stream' : BigInt(events.length - 1);

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
  const events = await store.readStream(stream);
  if (!ownedByStreamOwner(stream, events)) throw new StreamOwnershipError(stream);
  return events;
}
