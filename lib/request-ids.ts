// Request ids (the x-request-id header, a 500's support code, the events' requestId and default
// correlation id, the request journal's ids): a random prefix drawn once per process, then a
// counter. Unique across processes and restarts as a UUID is, at a string's cost: a UUID per
// request, with its entropy refills, showed in the pay benchmark's profile.
import { randomBytes } from 'node:crypto';

/** Letters, digits, '_' and '-' (base64url), ending in '-': what every id drawn here starts with. */
export const REQUEST_ID_PREFIX = `${randomBytes(12).toString('base64url')}-`;
let requestCount = 0;

export const nextRequestId = (): string => `${REQUEST_ID_PREFIX}${(++requestCount).toString(36)}`;

/** Whether a request id was drawn by this process (an event's requestId: one of this process's requests). */
export const isOwnRequestId = (id: string): boolean => id.startsWith(REQUEST_ID_PREFIX);
