// The emulator's challenge (routes/acs.ts): the page the payer's browser is sent to by Authenticate
// Payer's HTML, and the payer's answer, a command on the order's stream (ChallengeAnswered) like
// every other step. Its answer is the page that posts the result back to the merchant's
// redirectResponseUrl, as the real ACS does through the gateway; a second answer (a double
// submit, the back button) posts the first result back again.
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type OrderEvent } from '../../domain/events.js';
import { decide, type AuthenticationStep, type OrderState } from '../../domain/order/order.js';
import type { Authentication } from '../../domain/order/authentication-state.js';
import { CHALLENGE_CODE, isChallengeOption, type ChallengeOption } from '../../domain/order/authentication-cards.js';
import { formatAmount, minorUnits } from '../../domain/money.js';
import { foldOrder, orderAggregate, readOwnStream } from '../aggregates.js';
import { handleCommand, type Decision } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { RecordedEvent } from '../../store/event-store.js';
import type { Gateway } from '../gateway.js';
import { returnPage } from './authentication-html.js';
import { statusAnswer } from './authentication-view.js';

/** The challenge a page is about (the path of the ACS URL). */
export interface ChallengeParams { merchantId: string; orderId: string; transactionId: string }

/** The 3DS server transaction id a creq names (base64 JSON, as the gateway's HTML posts it); undefined when it names none. */
export function creqTransactionId(creq: string | undefined): string | undefined {
  if (creq === undefined || creq.length > 4096) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(creq, 'base64').toString('utf8'));
    const id = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>).threeDSServerTransID : undefined;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** What the challenge page shows: the purchase the payer is asked to confirm. */
export interface ChallengeView {
  merchantId: string; amount: string; currency: string; cardLast4: string; brand: string;
  /** The challenge request, which the page's form posts again with the answer (it names the challenge). */
  creq: string;
  /** The challenge was answered already: the page that posts its result back instead. */
  answered?: string;
}

const NOT_OPEN = () => new InvalidRequest('Value is invalid. No challenge is open for this request', 'creq');

/** The API version of the authentication's Initiate Authentication (its answers' words): kept in its event's metadata. */
function versionOf(history: readonly RecordedEvent[], transactionId: string): number {
  const initiated = history.find((e) => e.type === 'AuthenticationInitiated' && (e.data as { transactionId: string }).transactionId === transactionId);
  const version = initiated?.metadata.apiVersion;
  return typeof version === 'number' ? version : 100;
}

function returnPageOf(a: Authentication, version: number): string {
  const { initiated, payer, outcome } = a;
  const { result, gatewayRecommendation } = statusAnswer(outcome.authenticationStatus, version);
  return returnPage(payer?.redirectResponseUrl ?? '', { orderId: initiated.orderId, transactionId: initiated.transactionId, result, gatewayRecommendation });
}

/** The challenge the creq opens: only one Authenticate Payer sent to the challenge page, named by its creq. */
export async function challengeView(gateway: Gateway, params: ChallengeParams, creq: string | undefined): Promise<ChallengeView> {
  const id = creqTransactionId(creq);
  const history = await readOwnStream(gateway.store, streams.order(params.merchantId, params.orderId));
  const state = foldOrder(history);
  const a = state.exists ? state.modern?.authentications?.get(params.transactionId) : undefined;
  if (!a?.challenged || !a.payer || id === undefined || a.initiated.threeDSServerTransactionId !== id) throw NOT_OPEN();
  const { payer, initiated } = a;
  return {
    merchantId: params.merchantId, amount: formatAmount(payer.amount, minorUnits(payer.currency) ?? 2),
    currency: payer.currency, cardLast4: initiated.source.card.number.slice(-4), brand: initiated.source.card.brand, creq: creq ?? '',
    ...(a.challenge ? { answered: returnPageOf(a, versionOf(history, params.transactionId)) } : {}),
  };
}

/**
 * The challenge page's form, as posted: the creq again (not the 3DS server transaction id alone:
 * its digit groups may read as a card number, which no request field may hold), and the answer.
 */
export interface ChallengeForm { creq?: string; selectAuthResult?: string; otp?: string; cancel?: string }

/** The outcome a form asks for: cancel, a typed code (the right one authenticates), else the option picked. */
function answerOf(form: ChallengeForm): { answer: ChallengeOption; byCode?: boolean } {
  if (form.cancel !== undefined) return { answer: 'CANCELLED_AUTHENTICATION' };
  const code = form.otp?.trim() ?? '';
  if (code !== '') return { answer: code === CHALLENGE_CODE ? 'AUTHENTICATED' : 'UNAUTHENTICATED', byCode: true };
  const picked = form.selectAuthResult ?? '';
  if (!isChallengeOption(picked)) throw new InvalidRequest(`Value '${picked.slice(0, 40)}' is invalid. Pick one of the outcomes offered`, 'selectAuthResult');
  return { answer: picked };
}

/** The payer's answer: recorded (ChallengeAnswered), answered with the page that posts the result back to the merchant. */
export async function answerChallenge(gateway: Gateway, params: ChallengeParams, form: ChallengeForm, meta: RequestMeta): Promise<string> {
  const { answer, byCode } = answerOf(form);
  const threeDSServerTransactionId = creqTransactionId(form.creq) ?? '';
  return handleCommand(gateway, streams.order(params.merchantId, params.orderId), orderAggregate,
    (state: OrderState, { now, history }): Decision<OrderState, OrderEvent, string> => {
      const decision = decide({ type: 'AnswerChallenge', ...params, threeDSServerTransactionId, answer, ...(byCode ? { byCode } : {}), now }, state);
      const page = (step: AuthenticationStep) => returnPageOf(step.authentication, versionOf(history, params.transactionId));
      switch (decision.kind) {
        case 'recorded':
          return { events: decision.events, answer: () => page(decision.transaction) };
        case 'replayed':
        case 'locked':
          return { events: [], answer: () => page(decision.transaction) };
        case 'inFlight':
          return { events: [], again: 20 };
        case 'started':
        case 'busy':
          throw NOT_OPEN();
      }
    }, { meta, ownStream: true });
}
