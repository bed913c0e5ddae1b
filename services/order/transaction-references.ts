// transaction.reference is unique across all transactions of a merchant (spec: "unique across
// all transactions on any order"). The claim is a reservation stream named from an HMAC of the
// reference, created with expected revision no_stream: of simultaneous claims, in one process or
// several sharing the store, exactly one wins. The claim belongs to its (order, transaction), so
// the same transaction may claim it again (a retry, or the second phase of a slow payment).
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type TransactionReferenceReserved } from '../../domain/events.js';
import { transactionReferenceAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';

export interface ReferenceClaim { merchantId: string; orderId: string; transactionId: string; reference: string }

function checkOwner(claim: ReferenceClaim, owner: TransactionReferenceReserved['data']): void {
  if (owner.orderId === claim.orderId && owner.transactionId === claim.transactionId) return;
  throw new InvalidRequest(
    `Value '${claim.reference}' is invalid. The reference is already used by another transaction of this merchant`,
    'transaction.reference',
  );
}

export async function reserveTransactionReference(gateway: Gateway, claim: ReferenceClaim, meta: RequestMeta, now: string): Promise<void> {
  const stream = streams.transactionReference(claim.merchantId, gateway.sealer.fingerprint(`txref:${claim.merchantId}:${claim.reference}`));
  const reserved: TransactionReferenceReserved = {
    type: 'TransactionReferenceReserved',
    data: { merchantId: claim.merchantId, orderId: claim.orderId, transactionId: claim.transactionId, reservedAt: now },
  };
  // A conflict (another request claimed it first) reads the claim again: it is ours only if that
  // request was this transaction.
  await handleCommand({ store: gateway.store }, stream, transactionReferenceAggregate, (owner) =>
    (owner ? { events: [], answer: () => checkOwner(claim, owner) } : { events: [reserved], answer: () => undefined }), { meta, now });
}

export interface ReferenceClaimer { readonly claimed: boolean; claim(now: string): Promise<void> }
const NOTHING_TO_CLAIM: ReferenceClaimer = { claimed: true, claim: async () => undefined };

/**
 * The claim of one request, made once: before the first append that records the transaction or
 * holds the order (a merchant rule's latency), however many times the command handler decides.
 * No reference: nothing to claim (`claimed` is true at once).
 */
export function referenceClaimer(gateway: Gateway, claim: Omit<ReferenceClaim, 'reference'> & { reference: string | undefined }, meta: RequestMeta): ReferenceClaimer {
  if (claim.reference === undefined) return NOTHING_TO_CLAIM;
  let claimed = false;
  return {
    get claimed() { return claimed; },
    async claim(now: string): Promise<void> {
      if (claimed || claim.reference === undefined) return;
      await reserveTransactionReference(gateway, { ...claim, reference: claim.reference }, meta, now);
      claimed = true;
    },
  };
}
