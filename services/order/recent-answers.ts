// Identical repeats of Pay with token (a client retrying after a lost response retries the same
// bytes), answered with the text of the answer before them: not parsed, read, decided or written
// again. An answer is kept once it was asked for again (a repeat decided as replayed), not when
// the payment is recorded: most payments are never repeated. It is used only for the same body
// text and token id at the same order and transaction, and only while the store tells, without a
// read (EventStore.knownRevision), that neither the token's stream nor the order's has changed since
// the answer was made; else the request is decided as any other. A store that cannot tell (no
// revision known) never has a repeat answered here.
import { frozenJsonCopy } from '../../lib/json.js';
import { setMostRecent } from '../../lib/bounded-map.js';
import { streams } from '../../domain/events.js';
import type { MerchantProfile } from '../../merchants.js';
import type { PayBody, PayParams } from '../../schemas/pay.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { handleOrderCommand } from './order-service.js';
import type { PayableCards } from './payable-cards.js';
import { payRequest, type PayRequest } from './pay-request.js';
import type { PayResponse } from './responses.js';

/** The answers kept (least recently kept out). */
const MAX_KEPT = 2_000;

interface Kept {
  bodyText: string;
  /** `bodyText` parsed (frozen: every repeat of that text shares it). */
  body: PayBody;
  tokenid: string;
  tokenRevision: bigint;
  orderRevision: bigint;
  text: string;
}

/** Which payment a request names (its path's parameters, not yet validated). */
export interface PaymentIds { merchantId: string; orderid?: string | undefined; transactionid?: string | undefined }

const keyOf = (merchantId: string, params: Omit<PaymentIds, 'merchantId'>) => `${streams.order(merchantId, params.orderid ?? '')}\u0000${params.transactionid ?? ''}`;

export class RecentAnswers {
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly gateway: Pick<Gateway, 'store'>) {}

  /** The body a kept repeat of `bodyText` was parsed to (the same text parses to the same body, whatever the request). */
  body(merchantId: string, params: Omit<PaymentIds, 'merchantId'>, bodyText: string): PayBody | undefined {
    const kept = this.kept.size === 0 ? undefined : this.kept.get(keyOf(merchantId, params));
    return kept !== undefined && kept.bodyText === bodyText ? kept.body : undefined;
  }

  /** The kept answer's text, when this request repeats its bytes and neither the token nor the order changed since. */
  text(ids: PaymentIds & { tokenid: string; repositoryId: string }, bodyText: string): string | undefined {
    const kept = this.kept.size === 0 ? undefined : this.kept.get(keyOf(ids.merchantId, ids));
    if (kept === undefined || kept.bodyText !== bodyText || kept.tokenid !== ids.tokenid) return undefined;
    const { store } = this.gateway;
    const unchanged = store.knownRevision(streams.token(ids.repositoryId, ids.tokenid)) === kept.tokenRevision &&
      store.knownRevision(streams.order(ids.merchantId, ids.orderid ?? '')) === kept.orderRevision;
    return unchanged ? kept.text : undefined;
  }

  /** Keep a repeat's answer, made with the token's and the order's streams at these revisions. */
  keep(ids: PaymentIds & { tokenid: string }, bodyText: string, body: PayBody, revisions: { token: bigint; order: bigint }, text: string): void {
    if (bodyText.length === 0) return;
    setMostRecent(this.kept, keyOf(ids.merchantId, ids), {
      bodyText, body: frozenJsonCopy(body) as PayBody, tokenid: ids.tokenid, tokenRevision: revisions.token, orderRevision: revisions.order, text,
    }, MAX_KEPT);
  }
}

/**
 * Pay with token's answer as the text `serialize` writes (the route's response schema): a kept
 * repeat's text at once (no promise, no turn of the microtask queue), else the payment decided
 * (order-service.ts), an identical repeat's answer kept. `bodyText`: the body as received. A
 * refusal is the promise's (as from any decided payment), never thrown.
 */
export function payWithTokenText(
  gateway: Gateway, { recent, cards }: { recent: RecentAnswers; cards: PayableCards }, merchant: MerchantProfile, params: PayParams, body: PayBody,
  bodyText: string, serialize: (response: PayResponse) => string, meta: () => RequestMeta,
): string | Promise<string> {
  // (Member by member: no object spread on every pay.)
  const ids = { merchantId: merchant.id, repositoryId: merchant.repository.id, tokenid: params.tokenid, orderid: params.orderid, transactionid: params.transactionid };
  const kept = recent.text(ids, bodyText);
  if (kept !== undefined) return kept;
  const decided = (pay: PayRequest) => handleOrderCommand(gateway, {
    facts: pay.facts,
    uniqueReference: pay.uniqueReference,
    answer: (payment, state, now) => serialize(pay.answer(payment, state, now)),
    depends: pay.depends,
    // The token's revision the replay was decided on (confirmed first when read unconfirmed).
    replayed: (text, orderRevision) => recent.keep(ids, bodyText, body, { token: pay.depends.revision, order: orderRevision }, text),
  }, meta());
  try {
    const pay = payRequest(gateway, cards, merchant, params, body);
    return pay instanceof Promise ? pay.then(decided) : decided(pay);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}
