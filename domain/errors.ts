// The gateway's coded errors, in one place: every refusal or failure that reaches a client as the
// gateway's error body (../shared/guide/gateway-facts.md, "HTTP status codes and error bodies")
// is a GatewayError, which carries the body's `cause`, the HTTP status, the body's other members
// and how it is logged; plugins/errors.ts renders any of them the same way. The domain throws
// InvalidRequest; the HTTP plugins AuthenticationFailed and RequestRejected; the services Busy and
// SimulatedFault; the store adapters translate their own errors into StoreBusy, StorageFault and
// StoreUnreachable (store/storage-fault.ts, store/kurrentdb-mapping.ts), so that nothing above
// them knows a store's error codes. Pure: no framework, no store client, no node: module.
import type { Fault } from './merchant-rules.js';

export type ValidationType = 'INVALID' | 'MISSING' | 'UNSUPPORTED';

/** error.cause of the gateway's error body. */
export type ErrorCause = 'INVALID_REQUEST' | 'REQUEST_REJECTED' | 'SERVER_BUSY' | 'SERVER_FAILED';

/** The members of error besides `cause` (undefined members are left out of the body). */
export interface ErrorMembers {
  explanation?: string | undefined;
  field?: string | undefined;
  validationType?: ValidationType | undefined;
  supportCode?: string | undefined;
}

/** What an error needs of the request it answers: its id (the supportCode) and the client's address. */
export interface RequestFacts {
  readonly id: string;
  readonly ip: string;
}

/**
 * An error the gateway answers with its error body: `{"error":{"cause":...,...},"result":"ERROR"}`
 * with HTTP status `statusCode`. (`gatewayCause`, not `cause`: Error's `cause` is the error this
 * one wraps.)
 */
export abstract class GatewayError extends Error {
  abstract readonly gatewayCause: ErrorCause;
  abstract readonly statusCode: number;
  /** The body's members besides cause (explanations never quote card data: they are masked anyway). */
  abstract members(request: RequestFacts): ErrorMembers;
  /** Response headers besides Content-Type. */
  headers(): Record<string, string> {
    return {};
  }
  /** How the answer is logged: level, message, and the fields of the line. */
  readonly logLevel: 'info' | 'warn' | 'error' = 'info';
  abstract readonly logMessage: string;
  logFields(_request: RequestFacts): Record<string, unknown> {
    return { cause: this.gatewayCause };
  }
}

/** error.cause INVALID_REQUEST: the request breaks the API protocol (HTTP 400). */
export class InvalidRequest extends GatewayError {
  readonly gatewayCause = 'INVALID_REQUEST';
  readonly statusCode = 400;
  readonly logMessage = 'request refused';
  readonly field: string | undefined;
  readonly validationType: ValidationType | undefined;
  constructor(explanation: string, field?: string, validationType?: ValidationType) {
    super(explanation);
    this.name = 'InvalidRequest';
    this.field = field;
    this.validationType = field === undefined ? undefined : (validationType ?? 'INVALID');
  }
  members(): ErrorMembers {
    return { explanation: this.message, field: this.field, validationType: this.validationType };
  }
  override logFields(): Record<string, unknown> {
    return { cause: this.gatewayCause, field: this.field, validationType: this.validationType };
  }
}

/** Credentials missing, wrong, or not those of the merchant named: 401 INVALID_REQUEST. */
export class AuthenticationFailed extends GatewayError {
  override name = 'AuthenticationFailed';
  readonly gatewayCause = 'INVALID_REQUEST';
  readonly statusCode = 401;
  readonly logMessage = 'authentication failed';
  constructor(explanation = 'Invalid credentials.') { super(explanation); }
  members(): ErrorMembers {
    return { explanation: this.message };
  }
  override logFields(): Record<string, unknown> {
    return { cause: this.gatewayCause, status: this.statusCode };
  }
}

/**
 * error.cause REQUEST_REJECTED (HTTP 429): the credential tried (a merchant id, or the admin)
 * failed too often and is locked; Retry-After says in how many seconds it may be tried again.
 */
export class RequestRejected extends GatewayError {
  override name = 'RequestRejected';
  readonly gatewayCause = 'REQUEST_REJECTED';
  readonly statusCode = 429;
  override readonly logLevel = 'warn';
  readonly logMessage = 'credential locked after too many failed authentications';
  constructor(readonly retryAfterSeconds = 60) { super('too many failed authentications of this credential'); }
  members(request: RequestFacts): ErrorMembers {
    return { supportCode: request.id };
  }
  override headers(): Record<string, string> {
    return { 'retry-after': String(this.retryAfterSeconds) };
  }
  override logFields(request: RequestFacts): Record<string, unknown> {
    return { cause: this.gatewayCause, client: request.ip, retryAfter: this.retryAfterSeconds };
  }
}

/** error.cause SERVER_BUSY (HTTP 503) with an explanation: the client repeats the identical request later. */
export abstract class ServerBusy extends GatewayError {
  readonly gatewayCause = 'SERVER_BUSY';
  readonly statusCode = 503;
  abstract readonly explanation: string;
  members(): ErrorMembers {
    return { explanation: this.explanation };
  }
}

/** Too much contention to finish now: answered 503 SERVER_BUSY; the client repeats the request. */
export class Busy extends ServerBusy {
  override name = 'Busy';
  readonly explanation = 'The gateway is busy: repeat the identical request later';
  override readonly logLevel = 'warn';
  readonly logMessage = 'busy';
  /** The store's own code for it, for the log (StoreBusy); none for the services' own contention. */
  readonly code: string | undefined = undefined;
  override logFields(): Record<string, unknown> {
    return { cause: this.gatewayCause, code: this.code };
  }
}

/** The store is held by another writer longer than it waits (the adapter's code, e.g. SQLITE_BUSY, in `code`). */
export class StoreBusy extends Busy {
  override name = 'StoreBusy';
  override readonly code: string;
  constructor(message: string, code: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The 503 explanation of a store that cannot write (the same for every request while it lasts). */
export const storageFaultExplanation = (reason: string, heals: boolean) =>
  `The gateway cannot write to its store: ${reason}. The request may not have been recorded; ` +
  (heals ? 'repeat the identical request later' : 'repeat the identical request once Check Gateway reports OPERATING again (after a restart)');

/**
 * A store that cannot write (a full disk, a read-only or corrupt file, an I/O error, a failed
 * sync): Check Gateway says SHUTDOWN, and every write is refused with 503 SERVER_BUSY until it is
 * OPERATING (store/storage-fault.ts makes them from the store's codes).
 */
export class StorageFault extends ServerBusy {
  override name = 'StorageFault';
  override readonly logLevel = 'error';
  readonly logMessage = 'the store cannot write: request refused';
  /** The reason shown to clients (the 503 explanation): no path, no file content. */
  readonly reason: string;
  /**
   * @param message what happened, for the log (may name the store, never request data)
   * @param code the store's or the system's code (SQLITE_FULL, SQLITE_IOERR_WRITE, EIO, ...)
   * @param heals a full disk: the next write that succeeds ends the fault; else until a restart
   * @param options.reason the reason shown to clients (default: an I/O error)
   */
  constructor(message: string, readonly code: string, readonly heals: boolean, options?: { cause?: unknown; reason?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.reason = options?.reason ?? 'an I/O error';
  }
  get explanation(): string {
    return storageFaultExplanation(this.reason, this.heals);
  }
  override logFields(): Record<string, unknown> {
    return { cause: this.gatewayCause, code: this.code, fault: this.message };
  }
}

/** The event store cannot be reached (a KurrentDB node down, a leader election): it may come back. */
export class StoreUnreachable extends ServerBusy {
  override name = 'StoreUnreachable';
  readonly explanation = 'The gateway cannot reach its event store. The request may not have been recorded; repeat the identical request later';
  // A warning without a stack: while the store is away every write is refused, and a stack per
  // request would bury the one line that matters (what the store answered) under identical traces.
  override readonly logLevel = 'warn';
  readonly logMessage = 'the event store cannot be reached: request refused';
  override logFields(): Record<string, unknown> {
    return { cause: this.gatewayCause, store: this.message };
  }
}

/**
 * A fault a merchant rule asks for, rendered exactly like the real one: SERVER_BUSY as 503 with an
 * explanation, SERVER_FAILED as 500 with a supportCode.
 */
export class SimulatedFault extends GatewayError {
  override name = 'SimulatedFault';
  readonly logMessage = 'simulated fault (merchant rule)';
  constructor(readonly fault: Fault) {
    super(fault === 'SERVER_BUSY'
      ? 'The gateway is busy: repeat the identical request later'
      : 'simulated internal failure (merchant rule)');
  }
  get gatewayCause(): ErrorCause {
    return this.fault;
  }
  get statusCode(): number {
    return this.fault === 'SERVER_BUSY' ? 503 : 500;
  }
  members(request: RequestFacts): ErrorMembers {
    return this.fault === 'SERVER_BUSY' ? { explanation: this.message } : { supportCode: request.id };
  }
  override logFields(): Record<string, unknown> {
    return { cause: this.fault };
  }
}

/**
 * A refusal of the admin API with a status other than 400, in INVALID_REQUEST's body with the
 * field: 404, nothing of that name (an order, a transaction, a notification of the merchant); 409,
 * it is not in a state that allows the operation (a transaction no longer UNKNOWN).
 */
export class Refusal extends GatewayError {
  override name = 'Refusal';
  readonly gatewayCause = 'INVALID_REQUEST';
  readonly logMessage = 'request refused';
  constructor(readonly statusCode: 404 | 409, explanation: string, readonly field: string) { super(explanation); }
  members(): ErrorMembers {
    return { explanation: this.message, field: this.field, validationType: 'INVALID' };
  }
  override logFields(): Record<string, unknown> {
    return { cause: this.gatewayCause, status: this.statusCode, field: this.field };
  }
}

/**
 * A test card of the 3-D Secure emulator whose authentication step fails ("Generic Error
 * Response" in the test environment's table): 500 SERVER_FAILED with a supportCode, nothing recorded.
 */
export class EmulatedAuthenticationError extends GatewayError {
  override name = 'EmulatedAuthenticationError';
  readonly gatewayCause = 'SERVER_FAILED';
  readonly statusCode = 500;
  readonly logMessage = '3-D Secure emulator: the test card fails this step';
  constructor(readonly step: 'INITIATE_AUTHENTICATION' | 'AUTHENTICATE_PAYER') {
    super(`The 3-D Secure test card fails ${step}`);
  }
  members(request: RequestFacts): ErrorMembers {
    return { supportCode: request.id };
  }
  override logFields(): Record<string, unknown> {
    return { cause: this.gatewayCause, step: this.step };
  }
}
