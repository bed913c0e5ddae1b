// The events of a grown store, shared by the fillers (bench/replay.ts on SQLite, for the replay and
// the SQLite growth; bench/growth-postgres.ts on PostgreSQL). They come from the real deciders
// (decideToken, the order's decide) and services/context toEventData, so their shape follows the
// domain's: 1 TokenCreated : 9 PaymentRecorded (8 orders per token, the first with two
// transactions), a few cards, brands and outcomes.
import { randomFillSync, randomUUID } from 'node:crypto';
import { detectBrand, fundingMethodOf, mask64, schemeOf } from '../domain/card.js';
import { streams, type StoredCard } from '../domain/events.js';
import { decide, evolveOrder, initialOrderState, type OrderState } from '../domain/order/order.js';
import { decideToken, initialTokenState } from '../domain/token/token.js';
import { toEventData } from '../services/context.js';
import type { EventData } from '../store/event-store.js';

// Test cards with expiries of the trigger table: most approved, some declined.
const CARDS = [
  { number: '5123450000000008', expiry: { month: 1, year: 39 } },
  { number: '4508750015741019', expiry: { month: 1, year: 39 } },
  { number: '2223000000000007', expiry: { month: 5, year: 39 } },
  { number: '378282246310005', expiry: { month: 1, year: 39 } },
];
const ORDERS_PER_TOKEN = 8;
/** Tokens per transaction of a filler: ≈ 10,000 events. */
export const TOKENS_PER_BATCH = 1000;
export const EVENTS_PER_TOKEN = 1 + ORDERS_PER_TOKEN + 1;
const digits = (n: number) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, '0');
// Random bytes from a pool refilled 64 KiB at a time (one randomFillSync per ~2,000 values).
const pool = Buffer.alloc(65_536);
let poolAt = pool.length;
const randomText = (bytes: number) => {
  if (poolAt + bytes > pool.length) { randomFillSync(pool); poolAt = 0; }
  poolAt += bytes;
  return pool.toString('base64url', poolAt - bytes, poolAt);
};

/** Whose events the fixture holds, and the first token's index (a store filled in steps goes on from the last). */
export interface FixtureOwner {
  merchantId: string;
  repositoryId: string;
  firstToken: number;
  orderBase: number;
  /**
   * Seals a card number as store/sealing.ts does, under a key of its own that the filler stores
   * (the tokens then open as the gateway's own); absent: random bytes in that shape, under a key
   * id no key store holds (the replay reads the events, never a number).
   */
  seal?: (number: string) => string;
}

/** One token's streams: its TokenCreated, then its orders' PaymentRecorded (at most `budget` events). */
function tokenHistory(index: number, budget: number, clock: { t: number }, owner: FixtureOwner): FixtureStream[] {
  const { merchantId: MERCHANT_ID, repositoryId: REPOSITORY_ID } = owner;
  const source = CARDS[index % CARDS.length] ?? CARDS[0]!;
  const brand = detectBrand(source.number);
  const card: StoredCard = {
    // The shape of store/sealing.ts output (v1.<keyId>.<iv>.<ciphertext+tag>), random bytes.
    numberSealed: owner.seal?.(source.number) ?? `v1.${randomUUID()}.${randomText(12)}.${randomText(source.number.length + 16)}`,
    number: mask64(source.number), brand, scheme: schemeOf(brand), fundingMethod: fundingMethodOf(brand), expiry: source.expiry,
  };
  const token = `9${String(index).padStart(15, '0')}`;
  const meta = () => { const requestId = randomUUID(); return { requestId, correlationId: requestId, merchantId: MERCHANT_ID }; };
  const tick = () => new Date((clock.t += 1000)).toISOString();
  let now = tick();
  const created = decideToken(initialTokenState(), {
    type: 'CreateToken', merchantId: MERCHANT_ID, repositoryId: REPOSITORY_ID, tokenGeneration: 'RANDOM', token,
    sourceOfFunds: { type: 'CARD', card }, verification: { strategy: 'BASIC', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' }, now,
  });
  const out = [{ stream: streams.token(REPOSITORY_ID, token), events: toEventData(created, meta(), now) }];
  let left = budget - 1;
  const { numberSealed: _sealed, ...payCard } = card;
  for (let o = 0; o < ORDERS_PER_TOKEN && left > 0; o++) {
    const orderId = String(owner.orderBase + index * ORDERS_PER_TOKEN + o);
    let state: OrderState = initialOrderState();
    const events: EventData[] = [];
    for (let t = 1; t <= (o === 0 ? 2 : 1) && left > 0; t++, left--) {
      now = tick();
      const decision = decide({
        type: 'PayWithToken', merchantId: MERCHANT_ID, orderId, transactionId: String(t),
        requestFingerprint: randomText(32), repositoryId: REPOSITORY_ID, token, card: payCard,
        amount: 1250 + (index % 100) * 100, currency: 'USD', securityCode: '100', billingStreet: undefined,
        orderReference: `cart-${index}-${o}`, transactionReference: undefined, source: undefined, frequency: undefined,
        cashAdvance: undefined, taxLocal: undefined, acquirerMerchantId: MERCHANT_ID,
        ids: {
          authorizationCode: digits(6), receipt: digits(12), stan: digits(6),
          acquirerTransactionId: randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase(),
          batch: Number(now.slice(0, 10).replace(/-/g, '')),
        },
        now,
      }, state);
      if (decision.kind !== 'recorded') throw new Error('bench: a fresh transaction must be recorded');
      state = decision.events.reduce(evolveOrder, state);
      events.push(...toEventData(decision.events, meta(), now));
    }
    out.push({ stream: streams.order(MERCHANT_ID, orderId), events });
  }
  return out;
}

/** One stream of a token's history, its events from revision 0. */
export interface FixtureStream { stream: string; events: EventData[] }

/**
 * The fixture's tokens one by one from `owner.firstToken`, each its streams (its TokenCreated, then
 * its orders'), until `total` events are given (the last token cut short).
 */
export function* fixtureTokens(total: number, owner: FixtureOwner): Generator<FixtureStream[], void, undefined> {
  const clock = { t: Date.parse('2026-01-01T00:00:00.000Z') };
  let written = 0;
  for (let index = owner.firstToken; written < total; index++) {
    const history = tokenHistory(index, total - written, clock, owner);
    for (const { events } of history) written += events.length;
    yield history;
  }
}
