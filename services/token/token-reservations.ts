// The reservations of a unique-account repository (UNIQUE_CARD, UNIQUE_ACCOUNT_IDENTIFIER): one
// stream per account identifier, named by a random id that the key store maps the account's keyed
// hash to; a claim on it names the token that holds the account. The writes that use them:
// token-writes.ts.
import { accountKey, type AccountIdentifier } from '../../domain/token/accounts.js';
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type AccountIdentifierReserved } from '../../domain/events.js';
import { ACCOUNT_FIELD } from '../../domain/token/token.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { foldTokenState, reservationAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { TokenPlan, WriteContext } from './token-plan.js';
import { holds } from './token-accounts.js';

/** Turns of a write before it gives up (Busy). */
export const MAX_ATTEMPTS = 10;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A claim whose token is not written yet: its request is between the two appends, or stopped
 * there. The first half of the turns wait for it (5, 10, ... ms; false); after that, true: finish
 * its work (write the claimed token), so a request cut short never leaves the account claimable twice.
 */
export async function finishClaimNow(turn: number): Promise<boolean> {
  if (turn < MAX_ATTEMPTS / 2) {
    await sleep(5 * (turn + 1));
    return false;
  }
  return true;
}

export const claimData = (claims: readonly RecordedEvent[]) => claims.at(-1)?.data as AccountIdentifierReserved['data'] | undefined;

/** An account's reservation: its keyed hash, the reservation id it maps to, and the stream of that id. */
interface Reservation { hash: string; id: string; stream: string }

/**
 * The reservation of an account in a unique-account repository. Its stream is named by a random
 * id, and the mapping from the account's keyed hash to that id is kept in the key store, not in
 * the events: Delete Token releases it (token-shredding.ts), after which nothing in the files
 * links the number to the deleted token. (A stream named by the keyed hash itself, as before,
 * stays in the append-only log: anyone holding the files, key file included, could find a deleted
 * token's number from its 6.4 masked digits in ≈ 10^5 tries of the hash.) The mapping is written
 * INSERT OR IGNORE and read back, so every request, in any process sharing the key store, uses
 * the first id written.
 * Stores of older versions named the stream by the keyed hash: with no mapping, that stream is
 * looked up, and adopted (mapped to the hash itself) while its latest claim names a token that
 * still holds the account, so existing tokens stay unique. A lookup, not a migration at start: the old names
 * cannot be listed by account (they are hashes), and a stream of a deleted token is never adopted,
 * so the card stored again gets a new random reservation. (The old names of deleted tokens stay in
 * the log: only reservations made by this version are unlinked by a deletion.)
 */
export async function reservationOf(ctx: WriteContext, account: AccountIdentifier): Promise<Reservation> {
  const { sealer, store } = ctx.gateway;
  const repositoryId = ctx.merchant.repository.id;
  const hash = sealer.fingerprint(accountKey(repositoryId, account));
  let id = sealer.reservation(hash);
  if (id === undefined) {
    const legacy = claimData(await store.readStream(streams.accountReservation(repositoryId, hash)));
    const holder = legacy === undefined ? undefined : foldTokenState(await store.readStream(streams.token(repositoryId, legacy.token)));
    // Adopted while its token holds the account (or is not written yet: a request cut short).
    const live = holder !== undefined && (holder.status === 'NONE' || (holder.status === 'VALID' && holds(ctx.gateway, holder, account)));
    id = sealer.reserve(hash, live ? hash : sealer.newReservationId());
  }
  return { hash, id, stream: streams.accountReservation(repositoryId, id) };
}

/** Claim the reservation for `token`, on its claims as read; false when another request claimed it first. */
export async function claim(ctx: WriteContext, reservation: string, claims: readonly RecordedEvent[], token: string): Promise<boolean> {
  const reserved: AccountIdentifierReserved = { type: 'AccountIdentifierReserved', data: { repositoryId: ctx.merchant.repository.id, token, reservedAt: ctx.now } };
  return handleCommand({ store: ctx.gateway.store, sandbox: ctx.gateway.sandbox }, reservation, reservationAggregate, () => ({ events: [reserved], answer: () => true }),
    { meta: ctx.meta, now: ctx.now, known: claims, attempts: 1, exhausted: () => false });
}

/** A unique-account repository's refusal of an account another token holds (the reference: never two tokens for one account). */
export const storedElsewhere = (token: string, plan: TokenPlan) => new InvalidRequest(
  `Value is invalid. This account is already stored against token '${token}' of the repository, which manages one token per account`,
  ACCOUNT_FIELD[plan.details.type],
);
