// Read model for the admin's search (services/queries/stream-history.ts): which order streams hold a
// transaction id. Transaction ids are chosen by the merchant per order ("1" on many orders), so a
// search by one cannot name the stream; this model does, without reading the log.
// Only data is read: a projection sees no metadata (store/event-store.ts ProjectedEvent), so
// correlation and causation ids are found by the history's bounded scan instead.
import type { ProjectedEvent } from '../store/event-store.js';
import type { Projection } from './projection.js';

export interface LookupDoc {
  /** The streams, oldest first, the latest LOOKUP_STREAMS of them. */
  streams: string[];
}

/** How many streams a document keeps: an id shared by many orders names the most recent ones. */
export const LOOKUP_STREAMS = 20;

export const transactionLookupKey = (transactionId: string) => `transaction/${transactionId}`;

export const lookupProjection: Projection<LookupDoc> = {
  name: 'lookup',
  // 2: 3-D Secure authentications are transactions too (AuthenticationInitiated).
  version: 2,
  // Read by the admin's search only, through ReadModels.get (which writes what is held first):
  // written after the reply, in batches.
  apply: 'deferred',
  handles: new Set(['PaymentRecorded', 'OrderTransactionRecorded', 'AuthenticationInitiated']),
  // What keysOf reads (a replay may hand only this).
  reads: { PaymentRecorded: ['transactionId'], OrderTransactionRecorded: ['transactionId'], AuthenticationInitiated: ['transactionId'] },
  keysOf(event: ProjectedEvent) {
    const d = event.data as { transactionId?: unknown };
    return typeof d.transactionId === 'string' ? [transactionLookupKey(d.transactionId)] : [];
  },
  evolve(doc, event) {
    // The stream moved (or added) to the end, the oldest beyond LOOKUP_STREAMS dropped: one array
    // made (every pay evolves one).
    const before = doc?.streams ?? [];
    const streams: string[] = [];
    let drop = before.length + (before.includes(event.stream) ? 0 : 1) - LOOKUP_STREAMS;
    for (const s of before) {
      if (s === event.stream) continue;
      if (drop > 0) {
        drop--;
        continue;
      }
      streams.push(s);
    }
    streams.push(event.stream);
    return { streams };
  },
};
