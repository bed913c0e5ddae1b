// The API versions the order, token and session paths are served on, as the gateway serves them
// (docs/operations.md, "Versions"): every version from 1 to 100 but those the gateway deactivated,
// each operation from the version the reference first has it. Every version answers in version
// 100's shape; the answer's `version` is the path's. Version 3's Pay with token and its Retrieve
// Order and Transaction are paths of their own (routes/pay.ts, routes/orders.ts).
import { InvalidRequest } from '../domain/errors.js';
import { Pattern } from './common.js';

/** {version} of the order API, tokens and sessions: 1 to 100 (a deactivated one is refused after). */
export const VersionParam = Pattern(1, 3, '^([1-9][0-9]?|100)$', 'a version from 1 to 100');

/** Versions the gateway deactivated on 31 January 2025 (its "Versioning" page). */
export const DEACTIVATED: ReadonlySet<number> = new Set([2, 5, 6, 22, 25]);

/**
 * The first version of the operations that did not exist in version 1 (the reference's migration
 * guides: "Integration available from"; sessions: the Retrieve Session guide starts at 18).
 */
export const FIRST_VERSION = {
  VOID: 4, VERIFY: 7, 'Retrieve Order': 11, 'Create, Update and Retrieve Session': 18,
  // The Authentication API (3-D Secure 2) replaced the 3DSecureId operations in version 50.
  INITIATE_AUTHENTICATION: 50, AUTHENTICATE_PAYER: 50,
} as const;
export const RETRIEVE_ORDER = 'Retrieve Order';
export const SESSIONS = 'Create, Update and Retrieve Session';
export type VersionedOperation = keyof typeof FIRST_VERSION;

/**
 * Refuses a deactivated version (400 on `version`), and a version older than the operation's
 * first (400 on `apiOperation` for an apiOperation, on `version` for the others).
 */
export function checkVersion(version: string, operation?: string): void {
  const number = Number(version);
  if (DEACTIVATED.has(number)) {
    throw new InvalidRequest(`Value '${version}' is invalid. Version ${version} was deactivated on 31 January 2025: use version 100`, 'version');
  }
  const first = operation !== undefined && Object.hasOwn(FIRST_VERSION, operation) ? FIRST_VERSION[operation as VersionedOperation] : 1;
  if (number >= first) return;
  // An apiOperation (VOID, INITIATE_AUTHENTICATION: upper case) is refused on its field.
  if (operation !== undefined && /^[A-Z_]+$/.test(operation)) {
    throw new InvalidRequest(`Value '${operation}' is invalid. ${operation} is available from version ${first}`, 'apiOperation');
  }
  throw new InvalidRequest(`Value '${version}' is invalid. ${operation} is available from version ${first}`, 'version');
}
