// The order aggregate's one decider: version 3's Pay with token and the order API's transactions
// act on one order stream (the state and evolve: order-state.ts), so one `decide` takes every
// command of the order, one case per kind: the payments, 3-D Secure's authentication steps
// (authentication.ts), the resolution of an UNKNOWN outcome. A new kind (Hosted Checkout's payment)
// is a new command in commands.ts and a case here: the `never` check below fails the build until
// it has one.
import type { PaymentOutcomeResolved } from '../events.js';
import type { AnswerChallenge, AuthenticationStep, OrderCommand, OrderDecision, RecordOf, ResolveUnknownPayment, TransactionCommand } from './commands.js';
import { decideAnswerChallenge, decideAuthenticatePayer, decideInitiateAuthentication } from './authentication.js';
import { decideResolveUnknown } from './order-resolution.js';
import type { OrderState } from './order-state.js';
import { decidePayWithToken } from './pay-with-token.js';
import { decideFollowOn, decideInitiating, decideVoid } from './transactions.js';

export type {
  AcquirerIds, AnswerChallenge, AuthenticatePayer, AuthenticationCommand, AuthenticationStep, FollowOn, InitiateAuthentication, Initiating,
  OrderApiCommand, OrderCommand, OrderDecision, PayWithToken, RecordOf, ResolveUnknownPayment, TransactionCommand, Void,
} from './commands.js';
export { evolveOrder, initialOrderState, LOCK_MARGIN_MS, orderStatus, type OrderState, type PaymentInProgress } from './order-state.js';

type Decided = OrderDecision<RecordOf<TransactionCommand>> | PaymentOutcomeResolved[];

export function decide(command: ResolveUnknownPayment, state: OrderState): PaymentOutcomeResolved[];
export function decide(command: AnswerChallenge, state: OrderState): OrderDecision<AuthenticationStep>;
export function decide<C extends TransactionCommand>(command: C, state: OrderState): OrderDecision<RecordOf<C>>;
export function decide(command: OrderCommand, state: OrderState): Decided;
export function decide(command: OrderCommand, state: OrderState): Decided {
  switch (command.type) {
    case 'PayWithToken':
      return decidePayWithToken(command, state);
    case 'PAY':
    case 'AUTHORIZE':
    case 'VERIFY':
      return decideInitiating(command, state);
    case 'CAPTURE':
    case 'REFUND':
      return decideFollowOn(command, state);
    case 'VOID':
      return decideVoid(command, state);
    case 'INITIATE_AUTHENTICATION':
      return decideInitiateAuthentication(command, state);
    case 'AUTHENTICATE_PAYER':
      return decideAuthenticatePayer(command, state);
    case 'AnswerChallenge':
      return decideAnswerChallenge(command, state);
    case 'ResolveUnknownPayment':
      return decideResolveUnknown(command, state);
    default: {
      const unreachable: never = command;
      return unreachable;
    }
  }
}

/** Copy only the members whose value is defined (events never carry `undefined`). */
export function optional<T extends Record<string, unknown>>(values: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(values) as Array<keyof T>) {
    if (values[key] !== undefined) out[key] = values[key];
  }
  return out;
}
