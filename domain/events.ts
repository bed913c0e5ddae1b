// The event catalog, one module per aggregate (domain/token/events.ts, domain/order/events.ts,
// domain/session/events.ts and checkout-events.ts, domain/notification/events.ts, domain/sandbox/events.ts) and the stream names (domain/streams.ts), gathered here.
import type { AccountIdentifierReserved, TokenEvent } from './token/events.js';
import type { OrderEvent, TransactionReferenceEvent } from './order/events.js';
import type { SessionEvent } from './session/events.js';
import type { NotificationEvent } from './notification/events.js';
import type { SandboxEvent } from './sandbox/events.js';
import { SANDBOX_EVENT_TYPES } from './sandbox/events.js';
import { NOTIFICATION_EVENT_TYPES } from './notification/events.js';
import { TOKEN_EVENT_TYPES } from './token/events.js';
import { ORDER_EVENT_TYPES } from './order/events.js';
import { SESSION_EVENT_TYPES } from './session/events.js';
import { CHECKOUT_EVENT_TYPES, type CheckoutEvent } from './session/checkout-events.js';

export * from './token/events.js';
export * from './order/events.js';
export * from './session/events.js';
export * from './session/checkout-events.js';
export * from './notification/events.js';
export * from './sandbox/events.js';
export * from './streams.js';

/** An event as read from a stream: its type names which of the catalog's events it is. */
type Typed = { readonly type: string; readonly data: unknown };
/** Type guards of each aggregate's events (a stream may hold other types: they are skipped). */
export const isTokenEvent = (e: Typed): e is TokenEvent => TOKEN_EVENT_TYPES.has(e.type);
export const isOrderEvent = (e: Typed): e is OrderEvent => ORDER_EVENT_TYPES.has(e.type);
export const isSessionEvent = (e: Typed): e is SessionEvent => SESSION_EVENT_TYPES.has(e.type);
export const isCheckoutEvent = (e: Typed): e is CheckoutEvent => CHECKOUT_EVENT_TYPES.has(e.type);
export const isAccountIdentifierReserved = (e: Typed): e is AccountIdentifierReserved => e.type === 'AccountIdentifierReserved';
export const isTransactionReferenceEvent = (e: Typed): e is TransactionReferenceEvent =>
  e.type === 'TransactionReferenceReserved' || e.type === 'TransactionReferenceReleased';
export const isNotificationEvent = (e: Typed): e is NotificationEvent => NOTIFICATION_EVENT_TYPES.has(e.type);
export const isSandboxEvent = (e: Typed): e is SandboxEvent => SANDBOX_EVENT_TYPES.has(e.type);
