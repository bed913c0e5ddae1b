// Failed password authentications and the locks they bring (AUTH_FAILURE_LIMIT), counted per
// credential in memory; the workers of one gateway share them (cluster.ts). The authentication
// hooks (plugins/auth.ts, plugins/nvp-auth.ts) and the admin API refuse a locked credential before
// its password is looked at.
import { RequestRejected } from '../domain/errors.js';

interface FailureCount { count: number; since: number; lockedUntil: number }

/** A wrong password, as the workers of one gateway tell each other (cluster.ts). */
export interface SharedFailure { credential: string; exists: boolean; at: number }
/** One credential's count and lock, as a worker that starts is handed them (cluster.ts). */
export interface FailureState extends FailureCount { credential: string; exists: boolean }

/** AUTH_FAILURE_LIMIT's window: the failures of a minute lock a credential for a minute. */
export const AUTH_FAILURE_WINDOW_MS = 60_000;

/**
 * Failed password authentications per CREDENTIAL (`merchant.<id>`, `admin`), not per client
 * address: a lock on an address would lock out every merchant behind it (one NAT, one CI runner)
 * because one of them mistyped, and would not stop a guesser who spreads over many addresses.
 *
 * - `limit` failures of one credential within `windowMs` lock it for `windowMs` (fixed window:
 *   O(1) memory per credential; at most 2*limit-1 guesses straddle two windows, then the lock).
 * - While locked the credential is refused (429) BEFORE its password is checked, so its correct
 *   password is refused too: otherwise a guesser would learn the password the moment it found it.
 *   A certificate is not the locked credential: certificate authentication still works.
 * - A success does not reset the count: a guesser interleaving with the real merchant's traffic
 *   would otherwise get unlimited guesses.
 * - Anyone can lock a credential out by sending wrong passwords for it, from anywhere. A sandbox
 *   accepts that (AUTH_FAILURE_LIMIT can be raised); a production gateway would add a per-address
 *   tier alongside this one.
 * - Memory stays bounded: credentials that exist (merchants of MERCHANTS_FILE, admin) are
 *   bounded by configuration and never evicted, so a spray cannot reset a real merchant's count.
 *   Names that match no credential are counted too (an unknown merchant id answers exactly like a
 *   known one: 401 up to the limit, then 429, so the lock does not reveal which ids exist), in a
 *   separate table of at most `maxUnknown` entries, the least recently failed evicted first.
 * - The workers of one gateway (WORKERS=N, cluster.ts) count as one: each tells the others of its
 *   failures (`onFailure`, `shared`), so N workers allow the guesses one process does.
 */
export class AuthFailures {
  private readonly known = new Map<string, FailureCount>();
  private readonly unknown = new Map<string, FailureCount>();
  /** Told of every failure recorded here (not of those another process told: `shared`). */
  onFailure: ((failure: SharedFailure) => void) | undefined;
  constructor(readonly limit: number, readonly windowMs: number, readonly maxUnknown = 10_000) {}

  /** Milliseconds until `credential` may be tried again; 0 if it is not locked. */
  lockedFor(credential: string, now?: number): number {
    // (Asked on every request: nothing to look at, and no clock read, while nothing failed.)
    if (this.known.size === 0 && this.unknown.size === 0) return 0;
    const at = now ?? Date.now();
    return this.lockedIn(this.known, credential, at) || this.lockedIn(this.unknown, credential, at);
  }

  private lockedIn(table: Map<string, FailureCount>, credential: string, now: number): number {
    const entry = table.get(credential);
    if (entry === undefined) return 0;
    if (entry.lockedUntil > now) return entry.lockedUntil - now;
    if (now - entry.since >= this.windowMs) table.delete(credential);
    return 0;
  }

  /** A wrong password for `credential`; `exists`: it names a real credential (never evicted). */
  record(credential: string, exists: boolean, now = Date.now()): void {
    this.count(credential, exists, now);
    this.onFailure?.({ credential, exists, at: now });
  }

  /** A wrong password another worker of this gateway saw (at its time `at`), counted as if here. */
  shared(failure: SharedFailure): void {
    this.count(failure.credential, failure.exists, failure.at);
  }

  private count(credential: string, exists: boolean, now: number): void {
    const table = exists ? this.known : this.unknown;
    let entry = table.get(credential);
    if (entry === undefined || (entry.lockedUntil <= now && now - entry.since >= this.windowMs)) {
      entry = { count: 0, since: now, lockedUntil: 0 };
    }
    entry.count += 1;
    if (entry.count >= this.limit) {
      entry.lockedUntil = now + this.windowMs;
      entry.count = 0;
      entry.since = now;
    }
    this.put(credential, exists, entry);
  }

  private put(credential: string, exists: boolean, entry: FailureCount): void {
    const table = exists ? this.known : this.unknown;
    table.delete(credential); // re-inserted last: the unknown table evicts from the front
    table.set(credential, entry);
    if (!exists) {
      for (const oldest of this.unknown.keys()) {
        if (this.unknown.size <= this.maxUnknown) break;
        this.unknown.delete(oldest);
      }
    }
  }

  /** Every credential's count and lock, least recently failed first (for a worker that starts). */
  snapshot(): FailureState[] {
    const states: FailureState[] = [];
    for (const [credential, entry] of this.known) states.push({ credential, exists: true, ...entry });
    for (const [credential, entry] of this.unknown) states.push({ credential, exists: false, ...entry });
    return states;
  }

  /** Take these counts and locks as this registry's (a worker starting takes the others' so). */
  restore(states: readonly FailureState[]): void {
    for (const { credential, exists, count, since, lockedUntil } of states) this.put(credential, exists, { count, since, lockedUntil });
  }

  /** Credentials with a failure count or a lock held in memory (known and unknown). */
  get size(): number {
    return this.known.size + this.unknown.size;
  }
}

/** Refuse a locked credential (429 with Retry-After), before its password is looked at. */
export function refuseIfLocked(failures: AuthFailures, credential: string): void {
  const wait = failures.lockedFor(credential);
  if (wait > 0) throw new RequestRejected(Math.max(1, Math.ceil(wait / 1000)));
}
