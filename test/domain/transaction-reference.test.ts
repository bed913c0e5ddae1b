// Who holds a transaction.reference of version 3: the requests of one transaction, each by its own
// attempt; free again only once every one of them let go (a refused request lets go, a recorded one
// never does), so a reference is never freed under a recorded transaction.
import t, { type Test } from 'tap';
import { InvalidRequest } from '../../domain/errors.js';
import type { TransactionReferenceEvent } from '../../domain/events.js';
import { decideHold, decideRelease, evolveReference, type ReferenceClaim, type ReferenceState } from '../../domain/order/transaction-reference.js';

const NOW = '2026-11-21T12:00:00.000Z';
const claim = (attemptId: string, orderId = 'O1', transactionId = 'T1'): ReferenceClaim =>
  ({ merchantId: 'M', orderId, transactionId, reference: 'ref', attemptId, now: NOW });
const apply = (state: ReferenceState, events: readonly TransactionReferenceEvent[]) => events.reduce(evolveReference, state);
const refused = (t: Test, state: ReferenceState, c: ReferenceClaim, what: string) =>
  t.throws(() => decideHold(state, c), new InvalidRequest("Value 'ref' is invalid. The reference is already used by another transaction of this merchant", 'transaction.reference'), what);

t.test('two requests of one transaction hold it together; it is free once both let go', async (t) => {
  let state = apply(undefined, decideHold(undefined, claim('a')));
  state = apply(state, decideHold(state, claim('b')));
  t.strictSame([...state!.attempts], ['a', 'b'], 'an identical retry holds it too');
  t.strictSame(decideHold(state, claim('a')), [], 'holding it again appends nothing');
  refused(t, state, claim('c', 'O2'), 'another transaction is refused');
  state = apply(state, decideRelease(state, claim('a')));
  refused(t, state, claim('c', 'O2'), 'still refused while the other request holds it (it may record)');
  state = apply(state, decideRelease(state, claim('b')));
  t.equal(state!.attempts.size, 0, 'nobody holds it');
  state = apply(state, decideHold(state, claim('c', 'O2', 'T9')));
  t.strictSame({ ...state, attempts: [...state!.attempts] }, { orderId: 'O2', transactionId: 'T9', attempts: ['c'] }, 'another transaction takes it');
  t.strictSame(decideRelease(state, claim('a')), [], 'a request that holds nothing lets go of nothing');
});

t.test('a claim recorded before holds were let go of holds for ever', async (t) => {
  const old: TransactionReferenceEvent = { type: 'TransactionReferenceReserved', data: { merchantId: 'M', orderId: 'O1', transactionId: 'T1', reservedAt: NOW } };
  let state = apply(undefined, [old]);
  state = apply(state, decideHold(state, claim('a')));
  state = apply(state, decideRelease(state, claim('a')));
  refused(t, state, claim('c', 'O2'), 'still held by its transaction');
  t.strictSame(decideHold(state, claim('d')).length, 1, 'a request of the same transaction may hold it');
});
