// What a command handler knows of the request that caused it, for event metadata and logs.
import { randomBytes } from 'node:crypto';
import { uuidV7 } from '../lib/uuid.js';
import type { EventData, EventMetadata } from '../store/event-store.js';

export interface RequestMeta {
  requestId: string;
  /** X-Correlation-Id header, else the request id (the body's correlationId is never stored). */
  correlationId: string;
  merchantId: string;
  /** order.notificationUrl of an order API request (allowed by the merchants file): where this order's notifications go from now on. */
  notificationUrl?: string;
  /** The API version of the request's path (the order API, 50-100): the version its notifications are written in. */
  apiVersion?: number;
  /** The request's method and path (no query string; a card number in it masked: lib/mask.ts), for histories. */
  method?: string;
  path?: string;
}

/** Domain events to store events: a fresh id each, and the request's metadata. */
export function toEventData(events: ReadonlyArray<{ type: string; data: unknown }>, meta: RequestMeta, now: string): EventData[] {
  const metadata: EventMetadata = {
    correlationId: meta.correlationId,
    causationId: meta.requestId,
    merchantId: meta.merchantId,
    requestId: meta.requestId,
    ...(meta.method ? { method: meta.method } : {}),
    ...(meta.path ? { path: meta.path } : {}),
    recordedAt: now,
    ...(meta.notificationUrl !== undefined ? { notificationUrl: meta.notificationUrl } : {}),
    ...(meta.apiVersion !== undefined ? { apiVersion: meta.apiVersion } : {}),
  };
  return events.map((e) => ({ id: uuidV7(), type: e.type, data: e.data, metadata }));
}

/** Random bytes for digits, drawn 4 KiB at a time from the CSPRNG (one call per ~4,000 digits, not one per 9); a byte handed out is zeroed. */
let digitBytes = Buffer.alloc(0);
let digitAt = 0;

function randomByte(): number {
  if (digitAt >= digitBytes.length) {
    digitBytes = randomBytes(4096);
    digitAt = 0;
  }
  const byte = digitBytes[digitAt] as number;
  digitBytes[digitAt++] = 0;
  return byte;
}

/** n random decimal digits (crypto-strength; token ids and acquirer references): a byte below 250 is a digit (its value mod 10), others are skipped. */
export function randomDigits(count: number): string {
  let out = '';
  while (out.length < count) {
    const byte = randomByte();
    if (byte < 250) out += String.fromCharCode(48 + (byte % 10));
  }
  return out;
}

/** n random hexadecimal digits, upper case (from the same pool: a byte gives one digit, its low 4 bits). */
export function hexDigits(count: number): string {
  let out = '';
  while (out.length < count) out += HEX[randomByte() & 15] as string;
  return out;
}
const HEX = '0123456789ABCDEF';
