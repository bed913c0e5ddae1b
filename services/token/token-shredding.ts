// What Delete Token must make the files forget once TokenDeleted is recorded, and the reactor that
// makes sure they do, whatever stopped the request in between.
//
// Order: TokenDeleted is appended first (services/token/tokens.ts), then shredToken runs: the token's
// unique-account reservations are released (their mapping in the key store: the only link from an
// account number to the reservation stream, services/token/token-writes.ts), then every key that sealed
// a number of the token, or of a session it was made from, is destroyed.
// Why not destroy first and append after: a failed append (a conflict, a full disk, a crash) would
// leave a token that is still VALID, retrieved and listed, but whose number is gone: it could no
// longer pay, and nothing would tell the merchant why. A recorded deletion whose keys remain is
// finished later instead, with nothing visible to anyone but the files.
// The releases come before the keys because they need the numbers (the keyed hash of each
// account): once the keys are gone, the mapping of a token's account could no longer be found.
//
// TokenShredder is that "later": it is handed the log (services/reactors.ts) from the key store's checkpoint
// (shreddedThrough) and shreds the token of every TokenDeleted it sees, but for those a request of
// this process shredded itself (shreddingHere): another process's request may have crashed before
// its shredding, so those are redone, asking the key store first which keys remain (shredToken's
// redo); destroying a destroyed key, or releasing a released mapping, does nothing. The
// checkpoint moves past a TokenDeleted only once its token is shredded, so a crash anywhere in
// between (of this process, or of another one sharing the store) is finished by the next start of
// any process. A key store made by this start takes the log's head as its checkpoint (it holds no
// key of anything before); one without a checkpoint made by an older version has the whole log read
// once, in the background: deletions an older version left half done are finished too.
import { accountKey, type AccountIdentifier } from '../../domain/token/accounts.js';
import { isTokenEvent, streams, type AccountIdentifierReserved } from '../../domain/events.js';
import { evolveToken, initialTokenState, type TokenState } from '../../domain/token/token.js';
import type { ReadModelsPort } from '../../projections/read-models.js';
import type { EventStore, RecordedEvent } from '../../store/event-store.js';
import type { Sealer } from '../../store/sealing.js';
import { Reactor } from '../reactor.js';
import { sessionKeyIds } from '../session/sessions.js';
import { heldAccount } from './token-accounts.js';

export interface ShredDeps { readonly store: EventStore; readonly sealer: Sealer }

/** Every key that sealed a value of the token (card or bank account numbers). */
function sealedKeys(sealer: Sealer, value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) sealedKeys(sealer, v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.endsWith('Sealed') && typeof v === 'string') {
        const keyId = sealer.keyIdOf(v);
        if (keyId) out.add(keyId);
      } else sealedKeys(sealer, v, out);
    }
  }
  return out;
}

/** The sessions the token's details came from (origin.sessionId of its TokenCreated and TokenUpdated events). */
function originSessions(history: readonly { data: unknown }[]): Array<{ merchantId: string; sessionId: string }> {
  const out = new Map<string, { merchantId: string; sessionId: string }>();
  for (const { data } of history) {
    const { merchantId, origin } = data as { merchantId?: string; origin?: { sessionId?: string } };
    if (merchantId !== undefined && origin?.sessionId !== undefined) out.set(`${merchantId}\n${origin.sessionId}`, { merchantId, sessionId: origin.sessionId });
  }
  return [...out.values()];
}

/**
 * Every account the token held in its life (opened from its sealed values: while its keys exist).
 * `gone`: keys known destroyed already, opened as the key store would open them (to nothing),
 * without asking it.
 */
function accountsHeld(sealer: Sealer, history: readonly RecordedEvent[], gone: (keyId: string) => boolean): AccountIdentifier[] {
  const opener = { open: (sealed: string) => (gone(sealer.keyIdOf(sealed) ?? '') ? undefined : sealer.open(sealed)) };
  const out = new Map<string, AccountIdentifier>();
  let state: TokenState = initialTokenState();
  for (const event of history) {
    if (!isTokenEvent(event)) continue;
    state = evolveToken(state, event);
    const account = state.status === 'VALID' ? heldAccount({ sealer: opener }, state) : undefined;
    if (account) out.set(accountKey('', account), account);
  }
  return [...out.values()];
}

/** Release every reservation whose latest claim names the token. */
async function releaseReservations(deps: ShredDeps, history: readonly RecordedEvent[], gone: (keyId: string) => boolean): Promise<void> {
  const { store, sealer } = deps;
  const first = history.find((e) => e.type === 'TokenCreated')?.data as { repositoryId?: string; token?: string } | undefined;
  if (first?.repositoryId === undefined || first.token === undefined) return;
  const { repositoryId, token } = first;
  for (const account of accountsHeld(sealer, history, gone)) {
    const hash = sealer.fingerprint(accountKey(repositoryId, account));
    const id = sealer.reservation(hash);
    if (id === undefined) continue;
    // A reservation claimed since by another token (the account stored again, or moved to
    // another token) is that token's now: kept.
    const claims = await store.readStream(streams.accountReservation(repositoryId, id));
    if ((claims.at(-1)?.data as AccountIdentifierReserved['data'] | undefined)?.token === token) sealer.release(hash, id);
  }
}

/**
 * Forget what the files hold of a token (its history `history`, read before or after its
 * TokenDeleted): release every reservation whose latest claim names it, then destroy its keys and
 * those of the sessions it was made from. Safe to run again, and from several processes at once.
 * `redo` (the shredder, which most often finds the work done by the request or by another
 * instance): the key store is first asked, in one statement, which of those keys still exist;
 * a key it does not hold is neither opened nor destroyed, which is what opening or destroying it
 * would do (keys are never made again under a destroyed id). A key store that cannot tell in one
 * statement is asked key by key, as the request does.
 */
export async function shredToken(deps: ShredDeps, history: readonly RecordedEvent[], options: { redo?: boolean } = {}): Promise<void> {
  const { store, sealer } = deps;
  // A session the token was made from forgets its card too: it would still hold the number (until
  // it expired) and could make a new token of it.
  const sessionKeys = new Set<string>();
  for (const { merchantId, sessionId } of originSessions(history)) {
    for (const keyId of sessionKeyIds(sealer, await store.readStream(streams.session(merchantId, sessionId)))) sessionKeys.add(keyId);
  }
  const tokenKeys = sealedKeys(sealer, history.map((e) => e.data));
  const held = options.redo ? sealer.heldKeys([...tokenKeys, ...sessionKeys]) : undefined;
  const gone = (keyId: string) => held !== undefined && !held.has(keyId);
  await releaseReservations(deps, history, gone);
  for (const keyId of [...tokenKeys, ...sessionKeys]) if (!gone(keyId)) sealer.destroyKey(keyId);
  // Gone from the files before the answer: a copy of them taken as soon as it arrives opens nothing.
  await sealer.forgetDestroyed();
}

/** Work the store or key store refused (busy, closing, a full disk) is tried again this much later. */
const RETRY_MS = 1000;
/** With no deletion pending, the checkpoint is written at most once per this many events. */
const CHECKPOINT_EVERY = 10_000n;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Delete Token requests of this process remembered for the shredder (beyond it, the oldest is forgotten: redone). */
const REQUESTS_KEPT = 10_000;

/** Shreds the token of every TokenDeleted in the log (see the top of this file). */
export class TokenShredder extends Reactor {
  readonly name = 'token-shredder';
  /** Token streams whose TokenDeleted was seen and whose shredding is not done, with its position. */
  private readonly due = new Map<string, bigint>();
  private seen = 0n;
  private recorded: bigint | undefined;
  /** Delete Token requests of this process, by token stream: true once the request shredded its token. */
  private readonly requests = new Map<string, Promise<boolean>>();

  /**
   * `whole`: the store without the merchants' epochs (store/epochs.ts). What a deleted token held is
   * read whole: a reset after its deletion, or of a merchant sharing its repository, hides part of
   * its stream or of its sessions' from the gateway's view, not from the files.
   */
  constructor(store: EventStore, readModels: ReadModelsPort, private readonly sealer: Sealer, private readonly whole: EventStore = store) {
    super(store, readModels, RETRY_MS);
  }

  /** shredToken of a Delete Token request: its sessions read whole (see the constructor). */
  shredDeleted(history: readonly RecordedEvent[]): Promise<void> {
    return shredToken({ store: this.whole, sealer: this.sealer }, history);
  }

  /**
   * From the key store's checkpoint: every event after it (of any type: the checkpoint follows them
   * all). A key store made by this start has none, and holds no key of a token deleted before it:
   * the checkpoint is the head, and no event before it is read.
   */
  protected async prepare(): Promise<bigint> {
    let from = this.sealer.shreddedThrough();
    if (from === undefined && this.sealer.freshKeys) {
      from = await this.store.headPosition();
      this.sealer.setShreddedThrough(from);
    }
    from ??= 0n;
    this.seen = from;
    this.recorded = from;
    return from;
  }

  protected override onCaughtUp(): void {
    this.advance();
  }

  /** Resolves once every TokenDeleted of the log at start has been seen and its token shredded. */
  async settled(): Promise<void> {
    await this.caughtUp;
    while (this.due.size > 0 && !this.stopped) await sleep(5);
  }

  protected onEvent(event: RecordedEvent): void {
    if (event.position > this.seen) this.seen = event.position;
    if (event.type === 'TokenDeleted') {
      if (!this.due.has(event.stream)) this.due.set(event.stream, event.position);
      this.schedule(event.stream, 0, () => this.shred(event.stream));
    } else if (this.due.size === 0 && this.seen - (this.recorded ?? 0n) >= CHECKPOINT_EVERY) {
      this.advance();
    }
  }

  /**
   * Delete Token on `stream`, in this process, before its append: call the function returned once
   * the request is over, with true when shredToken returned for the history its TokenDeleted was
   * appended on (the whole stream then: the append checks the revision). This shredder then does
   * not redo that deletion: every key and reservation it would touch is the request's, already
   * destroyed or released (committed: the key store's writes are durable when they return), and
   * the request's own forgetDestroyed, or the key store's scrub after it, removes them from the
   * files. It waits for the request when it sees the TokenDeleted first. A request that failed or
   * was cut short (false), one forgotten beyond REQUESTS_KEPT, and a process that crashed (its
   * memory gone: the checkpoint is still before the TokenDeleted) leave the deletion to be redone
   * here, at the next start, and by every other instance following the log.
   */
  shreddingHere(stream: string): (shredded: boolean) => void {
    let settle!: (shredded: boolean) => void;
    const done = new Promise<boolean>((resolve) => { settle = resolve; });
    if (this.requests.size >= REQUESTS_KEPT) this.requests.delete(this.requests.keys().next().value!);
    this.requests.set(stream, done);
    return (shredded) => {
      settle(shredded);
      if (!shredded && this.requests.get(stream) === done) this.requests.delete(stream);
    };
  }

  private async shred(stream: string): Promise<void> {
    const request = this.requests.get(stream);
    this.requests.delete(stream);
    if (!(request !== undefined && await request)) {
      const history = await this.whole.readStream(stream);
      if (history.some((e) => e.type === 'TokenDeleted')) await shredToken({ store: this.whole, sealer: this.sealer }, history, { redo: true });
    }
    this.due.delete(stream);
    this.advance();
  }

  /** Record the checkpoint: every event seen, but not past a TokenDeleted whose shredding is not done. */
  private advance(): void {
    let through = this.seen;
    for (const position of this.due.values()) if (position - 1n < through) through = position - 1n;
    if (this.recorded !== undefined && through <= this.recorded) return;
    try {
      this.sealer.setShreddedThrough(through);
      this.recorded = through;
    } catch {
      // The key store refuses writes (closing, a full disk): written at the next advance.
    }
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.advance();
  }
}
