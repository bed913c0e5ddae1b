// The checkout a payment page's path names: its paths carry the session id alone (as the real
// gateway's /checkout/pay/{sessionId} and /pbl/{paymentLinkId} do), and sessions are streams of
// their merchant. The merchant is remembered when the checkout is initiated (in this process,
// bounded); otherwise (another process initiated it, or after a restart) each merchant of the
// merchants file is tried: a read of a stream that does not exist is cheap, and the merchants
// file is short.
import { setMostRecent } from '../../lib/bounded-map.js';
import { streams } from '../../domain/events.js';
import type { MerchantProfile } from '../../merchants.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { foldCheckout, readOwnStream } from '../aggregates.js';
import type { Gateway } from '../gateway.js';
import type { CheckoutState } from '../../domain/session/checkout.js';

const MAX_REMEMBERED = 10_000;
const merchantOfSession = new Map<string, string>();

export function rememberCheckout(sessionId: string, merchantId: string): void {
  setMostRecent(merchantOfSession, sessionId, merchantId, MAX_REMEMBERED);
}

export interface FoundCheckout {
  merchant: MerchantProfile;
  stream: string;
  history: readonly RecordedEvent[];
  state: CheckoutState & { checkout: NonNullable<CheckoutState['checkout']> };
}

async function read(gateway: Gateway, merchant: MerchantProfile, sessionId: string): Promise<FoundCheckout | undefined> {
  const stream = streams.session(merchant.id, sessionId);
  const history = await readOwnStream(gateway.store, stream);
  if (history.length === 0) return undefined;
  const state = foldCheckout(history);
  return state.checkout ? { merchant, stream, history, state: state as FoundCheckout['state'] } : undefined;
}

/** The checkout session `sessionId` (undefined: no checkout of any merchant has that id; a plain session is none). */
export async function findCheckout(gateway: Gateway, sessionId: string): Promise<FoundCheckout | undefined> {
  const known = merchantOfSession.get(sessionId);
  const merchant = known === undefined ? undefined : gateway.merchants.get(known);
  if (merchant) {
    const found = await read(gateway, merchant, sessionId);
    if (found) return found;
  }
  for (const m of gateway.merchants.list) {
    if (m === merchant) continue;
    const found = await read(gateway, m, sessionId);
    if (found) {
      rememberCheckout(sessionId, m.id);
      return found;
    }
  }
  return undefined;
}

/** A payment link's checkout: the link id and its session's share their digits (PAYLINK…, SESSION…). */
export function sessionOfLink(paymentLinkId: string): string | undefined {
  return /^PAYLINK[0-9]{24}$/.test(paymentLinkId) ? `SESSION${paymentLinkId.slice(7)}` : undefined;
}
