// What a command handler knows of the request that caused it, for event metadata and logs.
import { uuidV7 } from '../lib/uuid.js';
import { random } from '../store/keys/random.js';
import type { EventData, EventMetadata } from '../store/event-store.js';

export interface RequestMeta {
  requestId: string;
  /** X-Correlation-Id header, else the request id (the body's correlationId is never stored). */
  correlationId: string;
  merchantId: string;
  /** order.notificationUrl of an order API request (allowed by the merchants file): where this order's notifications go from now on. */
  notificationUrl?: string;
  /**
   * The API version of the request's path (the order API: 1-100 but the deactivated ones): the
   * version its notifications are written in.
   */
  apiVersion?: number;
  /** The request's method and path (no query string; a card number in it masked: lib/mask.ts), for histories. */
  method?: string;
  path?: string;
}

/** Domain events to store events: a fresh id each, and the request's metadata. */
export function toEventData(events: ReadonlyArray<{ type: string; data: unknown }>, meta: RequestMeta, now: string): EventData[] {
  // Member by member, in this order (the stored text's), no object spread per optional member.
  const members: Record<string, unknown> = {
    correlationId: meta.correlationId,
    causationId: meta.requestId,
    merchantId: meta.merchantId,
    requestId: meta.requestId,
  };
  if (meta.method) members.method = meta.method;
  if (meta.path) members.path = meta.path;
  members.recordedAt = now;
  if (meta.notificationUrl !== undefined) members.notificationUrl = meta.notificationUrl;
  if (meta.apiVersion !== undefined) members.apiVersion = meta.apiVersion;
  const metadata = members as EventMetadata;
  return events.map((e) => ({ id: uuidV7(), type: e.type, data: e.data, metadata }));
}

/**
 * n random decimal digits (crypto-strength; token and session ids), from the CSPRNG
 * pool of store/keys/random.ts (one call into OpenSSL per 4 KiB): a byte below 250 is a digit (its
 * value mod 10), others are skipped.
 */
export function randomDigits(count: number): string {
  const out = count <= SCRATCH.length ? SCRATCH : Buffer.allocUnsafe(count);
  let n = 0;
  while (n < count) {
    const byte = random.byte();
    if (byte < 250) out[n++] = 48 + (byte % 10);
  }
  return out.toString('latin1', 0, count);
}

/** The digits are written here, then read out as one string (not a string per digit). */
const SCRATCH = Buffer.alloc(64);
