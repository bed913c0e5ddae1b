// transaction.reference of version 3's Pay with token is unique across the merchant's version 3
// transactions (spec: "unique across all transactions on any order"). The order API of versions
// 1-100 but the deactivated ones claims none: real clients send the same reference on many
// transactions ("1" on every CAPTURE, "PAY" on every PAY), and the real gateway accepts them there.
//
// The reference's stream is named from an HMAC of it (streams.transactionReference). A request
// about to record a transaction first holds the reference (TransactionReferenceReserved with its
// attempt id, appended with the stream's revision as the expected one: of simultaneous claims by
// different transactions exactly one wins, in one process or several sharing the store), then
// appends the order's event. A request that ends without recording its transaction (refused,
// LOCK_FAILURE, a simulated SERVER_BUSY, its identical twin recorded first, conflicts past the
// handler's attempts) lets go of its hold (TransactionReferenceReleased), so a refused
// transaction does not use up its reference. Who holds it: domain/order/transaction-reference.ts.
//
// Why hold first and let go after, not claim after the record or both at once: no store here
// appends to two streams at once, and a claim made after the record could find the reference
// taken with the transaction already recorded. A hold made first is let go of only when this
// request's record is known not to be written. When that is not known (the record's append failed
// with a store error: it may have been written), when the process dies between the two appends,
// or when letting go fails (the store unreachable), the hold stays: the reference is then refused
// to other transactions though none records it. That is the safe side: two transactions never
// share a reference; what a crash costs is that reference.
import { randomUUID } from 'node:crypto';
import { Busy } from '../../domain/errors.js';
import { streams } from '../../domain/events.js';
import { decideHold, decideRelease, type ReferenceClaim } from '../../domain/order/transaction-reference.js';
import { transactionReferenceAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';

/**
 * The hold of one request on its transaction's reference, and what the request tells it of its
 * record. The command handler's decide calls `deciding` first, `recording` when it decides to
 * record, and the record's answer `recorded`; `settle` wraps the whole command.
 */
export interface ReferenceClaimer {
  /** Nothing left to hold before an append: no reference, or held. */
  readonly claimed: boolean;
  /** Hold the reference (once per request), before the first append that records or holds the order. */
  claim(now: string): Promise<void>;
  /** decide runs (again): the record's append before it, if any, was refused as a conflict: not written. */
  deciding(): void;
  /** The record is about to be appended: until its answer, whether it is written is unknown. */
  recording(): void;
  /** The record is written: the hold stays for ever. */
  recorded(): void;
  /** The handler gave up after conflicts (its last append refused, nothing written): 503 SERVER_BUSY. */
  gaveUp(message: string): never;
  /** The command's result; once it is settled, the hold let go of unless the record is, or may be, written. */
  settle<T>(command: Promise<T>): Promise<T>;
}

const NOTHING_TO_CLAIM: ReferenceClaimer = {
  claimed: true,
  claim: async () => undefined,
  deciding: () => undefined,
  recording: () => undefined,
  recorded: () => undefined,
  gaveUp: (message) => { throw new Busy(message); },
  settle: (command) => command,
};

/** The claim of one request (its own attempt id); no reference: nothing to claim (`claimed` true at once). */
export function referenceClaimer(
  gateway: Gateway, claim: { merchantId: string; orderId: string; transactionId: string; reference: string | undefined }, meta: RequestMeta,
): ReferenceClaimer {
  const { reference } = claim;
  if (reference === undefined) return NOTHING_TO_CLAIM;
  const stream = streams.transactionReference(claim.merchantId, gateway.sealer.fingerprint(`txref:${claim.merchantId}:${reference}`));
  const attemptId = randomUUID();
  const full = (now: string): ReferenceClaim => ({ ...claim, reference, attemptId, now });
  let attempted = false;
  let held = false;
  let written: 'no' | 'unknown' | 'yes' = 'no';
  const release = () => handleCommand({ store: gateway.store, sandbox: gateway.sandbox }, stream, transactionReferenceAggregate, (state, { now }) =>
    ({ events: decideRelease(state, full(now)), answer: () => undefined }), { meta });
  const claimer: ReferenceClaimer = {
    get claimed() { return held; },
    async claim(now: string): Promise<void> {
      if (held) return;
      attempted = true;
      // A conflict (another request claimed it first) reads the holds again.
      await handleCommand({ store: gateway.store, sandbox: gateway.sandbox }, stream, transactionReferenceAggregate, (state) =>
        ({ events: decideHold(state, full(now)), answer: () => undefined }), { meta, now });
      held = true;
    },
    deciding() { if (written === 'unknown') written = 'no'; },
    recording() { written = 'unknown'; },
    recorded() { written = 'yes'; },
    gaveUp(message: string): never {
      claimer.deciding();
      throw new Busy(message);
    },
    async settle<T>(command: Promise<T>): Promise<T> {
      try {
        return await command;
      } finally {
        // A failed release keeps the hold (the safe side, above); the request's own answer stands.
        if (attempted && written === 'no') await release().catch(() => undefined);
      }
    },
  };
  return claimer;
}
