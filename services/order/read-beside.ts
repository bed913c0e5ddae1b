// A stream a transaction's decision is made on besides its order (Pay with token: the token's),
// when it was read from the store's memory without asking the server (EventStore.
// readStreamUnconfirmed, promise 8): it may lack a write another instance acknowledged a moment
// ago. What keeps every answer as right as one decided on a careful read:
//
// - a decision that appends carries the stream's revision as its append's condition: the order's
//   events are written only if the stream is still at that revision at their commit. Once one is
//   written (`held`) the rest of the request goes as after a careful read: a payment in progress
//   appends its record later unconditioned, the token being read once per payment;
// - after a failed condition (the attempt is told) the stream is read the careful way, the
//   command's facts made again from it (or its refusal thrown), and the order decided on them;
// - an answer given without an append (a replay, LOCK_FAILURE, a payment in progress, a simulated
//   SERVER_BUSY, a refusal) is confirmed first: the stream unchanged, it stands; changed, the
//   order is read and decided again (CONFLICT) on the new facts.
import { CONFLICT, type Attempt, type DecisionCondition } from '../command-handler.js';

export interface ReadBeside {
  readonly stream: string;
  /** The revision of `stream` the command's facts were made from. */
  readonly revision: bigint;
  /** Read the careful way, or held by a written append's condition: decided as on any careful read. */
  readonly confirmed: boolean;
  /** Read `stream` the careful way and make the command's facts from it, or throw its refusal; true when it changed. */
  confirm(): Promise<boolean>;
  /** An append carrying the condition was written: what was read held at its commit. */
  held(): void;
}

type Appending = { readonly events: readonly unknown[]; condition?: DecisionCondition | undefined };
type Decided<D> = D | typeof CONFLICT | Promise<D | typeof CONFLICT>;

/** `decide` under the rules above (once `beside` is confirmed, `decide` itself). */
export function decideBeside<D extends Appending>(beside: ReadBeside, attempt: Attempt, decide: () => D | Promise<D>): Decided<D> {
  if (beside.confirmed) return decide();
  if (attempt.conditionFailed === beside.stream) return beside.confirm().then(() => decide());
  let decided: D | Promise<D>;
  try {
    decided = decide();
  } catch (error) {
    return confirmedRefusal(beside, error);
  }
  return decided instanceof Promise
    ? decided.then((decision) => conditioned(beside, decision), (error: unknown) => confirmedRefusal(beside, error))
    : conditioned(beside, decided);
}

/** A decision that appends carries the condition; one that does not stands only once the stream is confirmed unchanged. */
function conditioned<D extends Appending>(beside: ReadBeside, decision: D): Decided<D> {
  if (decision.events.length === 0) return beside.confirm().then((changed) => (changed ? CONFLICT : decision));
  decision.condition = { stream: beside.stream, revision: beside.revision, held: () => beside.held() };
  return decision;
}

/** A refusal stands once the stream is confirmed unchanged (its own refusal, if it has one, first). */
async function confirmedRefusal(beside: ReadBeside, error: unknown): Promise<typeof CONFLICT> {
  if (await beside.confirm()) return CONFLICT;
  throw error;
}
