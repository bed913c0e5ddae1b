// The card a token can pay with, for Pay with token: its stream read and folded, the card copied
// without its sealed number. Most pays use a token that has not changed since the last pay with
// it, so the answer is kept by the token's stream, at the revision it was made from, and used
// again only while the store tells without a read (EventStore.knownRevision, promise 7), or a read
// shows, that the stream is still at that revision: an event appended since, by this process or
// another, and the stream is folded again. A store that cannot tell without a read (PostgreSQL,
// whose memory answers only after a head read; a stream of a reset merchant) reads it each time:
// from its memory without asking the server where it offers that (EventStore.readStreamUnconfirmed,
// promise 8), the card then marked unconfirmed (the order's append carries the token's revision as
// its condition, and an answer without an append is confirmed first: order/read-beside.ts); else
// the careful way (readStreamSoon). Only payable cards are kept; a refusal is decided anew, and
// never from an unconfirmed read: that refusal is decided again on the careful read. The order
// API's transactions that name a token (card-source.ts) read it the same way, with their own
// refusal.
import { InvalidRequest } from '../../domain/errors.js';
import type { PayWithToken } from '../../domain/order/order.js';
import { setMostRecent } from '../../lib/bounded-map.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { foldToken, readOwnStreamSoon, readOwnStreamUnconfirmed } from '../aggregates.js';
import type { Gateway } from '../gateway.js';
import type { ReadBeside } from './read-beside.js';

/** The token's card, and the revision of the token's stream it was read at. */
export interface PayableCard {
  readonly token: string;
  readonly card: PayWithToken['card'];
  readonly revision: bigint;
}

/** A pay's card; `confirmed` false: read from the store's memory without asking the server (promise 8). */
export interface PayableRead {
  readonly payable: PayableCard;
  readonly confirmed: boolean;
}

const confirmedRead = (payable: PayableCard): PayableRead => ({ payable, confirmed: true });

/** The cards kept (least recently kept out). */
const MAX_KEPT = 10_000;

export class PayableCards {
  private readonly kept = new Map<string, PayableCard>();

  /** `refusal`: the error for a token that cannot pay (unset: version 3's, on tokenid). */
  constructor(private readonly gateway: Pick<Gateway, 'store'>, private readonly refusal?: () => Error) {}

  /** The token's payable card from `stream`: kept, read unconfirmed, or read the careful way (without a promise where the store can). */
  of(stream: string, tokenid: string): PayableRead | Promise<PayableRead> {
    const kept = this.kept.size === 0 ? undefined : this.kept.get(stream);
    if (kept !== undefined && this.gateway.store.knownRevision(stream) === kept.revision) return confirmedRead(kept);
    const unconfirmed = this.unconfirmed(stream, tokenid, kept);
    if (unconfirmed !== undefined) return { payable: unconfirmed, confirmed: false };
    const payable = this.confirmed(stream, tokenid, kept);
    return payable instanceof Promise ? payable.then(confirmedRead) : confirmedRead(payable);
  }

  /**
   * The card read the careful way (readStreamSoon: on PostgreSQL after a head read), or its
   * refusal thrown: for a first read, and to confirm an unconfirmed one.
   */
  confirmed(stream: string, tokenid: string, kept = this.kept.get(stream)): PayableCard | Promise<PayableCard> {
    const history = readOwnStreamSoon(this.gateway.store, stream);
    return history instanceof Promise ? history.then((read) => this.keep(stream, tokenid, read, kept)) : this.keep(stream, tokenid, history, kept);
  }

  /** The card from the store's memory, unconfirmed; undefined: not held there, or refused (decided again on the careful read). */
  private unconfirmed(stream: string, tokenid: string, kept: PayableCard | undefined): PayableCard | undefined {
    try {
      const history = readOwnStreamUnconfirmed(this.gateway.store, stream);
      return history === undefined ? undefined : this.keep(stream, tokenid, history, kept);
    } catch {
      return undefined;
    }
  }

  /** The card `history` makes payable (`kept` when the stream is still at its revision). */
  private keep(stream: string, tokenid: string, history: readonly RecordedEvent[], kept?: PayableCard): PayableCard {
    if (kept !== undefined && (history.at(-1)?.revision ?? -1n) === kept.revision && this.kept.get(stream) === kept) return kept;
    const payable = payableCard(history, tokenid, this.refusal);
    setMostRecent(this.kept, stream, payable, MAX_KEPT);
    return payable;
  }
}

/**
 * The token's stream as a command read it (read-beside.ts): confirming it reads it the careful way
 * and hands the card to `apply` (which writes it into the command), or throws its refusal. (A
 * class: an object literal with accessors makes a function per member on every pay.)
 */
class TokenBeside implements ReadBeside {
  revision: bigint;
  confirmed: boolean;

  constructor(private readonly cards: PayableCards, readonly stream: string, private readonly tokenid: string, read: PayableRead, private readonly apply: (payable: PayableCard) => void) {
    this.revision = read.payable.revision;
    this.confirmed = read.confirmed;
  }

  held(): void {
    this.confirmed = true;
  }

  async confirm(): Promise<boolean> {
    const payable = await this.cards.confirmed(this.stream, this.tokenid);
    this.confirmed = true;
    if (payable.revision === this.revision) return false;
    this.revision = payable.revision;
    this.apply(payable);
    return true;
  }
}

export function tokenBeside(cards: PayableCards, stream: string, tokenid: string, read: PayableRead, apply: (payable: PayableCard) => void): ReadBeside {
  return new TokenBeside(cards, stream, tokenid, read, apply);
}

/**
 * The token's card, from the merchant's own repository only. An unknown token, a token of another
 * repository and a token that cannot pay get one and the same answer, so the answer says nothing
 * of other repositories. A token of this repository holding a bank account or wallet (not yet
 * stored by this release) is refused as UNSUPPORTED: pay with token moves funds from cards only.
 */
function payableCard(history: readonly RecordedEvent[], tokenid: string, refusal?: () => Error): PayableCard {
  const token = foldToken(history);
  const created = history.find((e) => e.type === 'TokenCreated')?.data as { sourceOfFunds?: { type?: unknown } } | undefined;
  const sourceType = created?.sourceOfFunds?.type;
  if (sourceType !== undefined && sourceType !== 'CARD') {
    throw refusal?.() ?? new InvalidRequest(`Value '${tokenid}' is invalid. The token holds ${String(sourceType)} details; pay with token supports card tokens only`, 'tokenid', 'UNSUPPORTED');
  }
  if (token.status !== 'VALID') {
    throw refusal?.() ?? new InvalidRequest(`Value '${tokenid}' is invalid. No such token in the merchant's token repository`, 'tokenid');
  }
  const { numberSealed: _sealed, ...card } = token.card;
  // Frozen: every pay with the token at this revision shares it.
  return Object.freeze({ token: token.token, card: Object.freeze(card), revision: history.at(-1)?.revision ?? -1n });
}
