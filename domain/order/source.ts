// The card an order's transactions use, as the order keeps it (its number masked 6.4): apart from
// the events so that every event module of the order can name it.
import type { Brand, FundingMethod, Scheme } from '../card.js';
import type { CardExpiry } from '../token/events.js';

/** The card an order's transactions use (a token of the merchant's repository, or a session's card), its number masked 6.4. */
export interface OrderSource {
  /** Absent when the card came from a session (session.id) without a token. */
  repositoryId?: string;
  token?: string;
  /** The session whose card was used. */
  sessionId?: string;
  card: { number: string; brand: Brand; scheme: Scheme; fundingMethod: FundingMethod; type: string; expiry: CardExpiry };
}
