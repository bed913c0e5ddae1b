// Writing tokens: a new token (UNIQUE_TOKEN), the token of an account identifier (UNIQUE_CARD,
// UNIQUE_ACCOUNT_IDENTIFIER: a reservation stream per identifier, created with no_stream or the
// read revision, so simultaneous requests in any number of processes make one token), and the
// token a request names in sourceOfFunds.token. Account numbers are sealed (token-accounts.ts)
// before any event; the reservations are token-reservations.ts.
import { Busy, InvalidRequest } from '../../domain/errors.js';
import { streams, type TokenEvent, type StoredSourceOfFunds } from '../../domain/events.js';
import type { SchemeTokenRefused, SchemeTokenStored } from '../../domain/token/scheme-token.js';
import { generateToken } from '../../domain/token/token-id.js';
import { decideToken, sourceOfFundsOf, type CreateToken, type TokenState, type ValidToken } from '../../domain/token/token.js';
import { foldTokenState, readOwnStream, tokenAggregate } from '../aggregates.js';
import { CONFLICT, handleCommand } from '../command-handler.js';
import { randomDigits } from '../context.js';
import type { SourceDetails } from './token-sources.js';
import { accountOf, holds, storedSource } from './token-accounts.js';
import type { TokenPlan, WriteContext, WriteOutcome } from './token-plan.js';
import { claim, claimData, finishClaimNow, MAX_ATTEMPTS, reservationOf, storedElsewhere } from './token-reservations.js';

const stored = (s: SchemeTokenRefused | SchemeTokenStored | undefined) => (s?.kind === 'stored' ? s.schemeToken : undefined);

/** The token as the events leave it: a write that makes no valid token is a bug, never an answer. */
function valid(state: TokenState): ValidToken {
  if (state.status !== 'VALID') throw new Error('token expected to be valid');
  return state;
}

function createCommand(ctx: WriteContext, token: string, plan: TokenPlan, source: StoredSourceOfFunds): CreateToken {
  const { repository } = ctx.merchant;
  const schemeToken = stored(plan.scheme);
  const command: CreateToken = {
    type: 'CreateToken', merchantId: ctx.merchant.id, repositoryId: repository.id, tokenGeneration: repository.tokenGeneration, token,
    sourceOfFunds: source, verification: plan.verification, now: ctx.now,
  };
  if (schemeToken) {
    command.schemeToken = schemeToken;
    command.provisioningMode = plan.provisioningMode;
  }
  if (plan.shipping) command.shipping = plan.shipping;
  if (plan.origin) command.origin = plan.origin;
  return command;
}

/**
 * Append TokenCreated under a new token id (a stream that must not exist: not read, the append's
 * no_stream checks it). `token`: the id, or a function drawing a new one at each attempt.
 * A fixed id: one attempt, undefined when it is taken. Drawn ids: `attempts` draws, then Busy.
 */
async function writeToken(ctx: WriteContext, token: string | (() => string), plan: TokenPlan, source: StoredSourceOfFunds, attempts = 1): Promise<WriteOutcome | undefined> {
  const repositoryId = ctx.merchant.repository.id;
  let id = typeof token === 'string' ? token : '';
  const stream = typeof token === 'string' ? streams.token(repositoryId, token) : () => streams.token(repositoryId, id = token());
  // An id drawn twice is read the second time: taken, another is drawn.
  return handleCommand<TokenState, TokenEvent, WriteOutcome | undefined>({ store: ctx.gateway.store }, stream, tokenAggregate, (state) => (state.status !== 'NONE' ? CONFLICT : {
    events: decideToken(state, createCommand(ctx, id, plan, source)),
    answer: (after, position) => ({ kind: 'stored', state: valid(after), schemeDecided: plan.scheme !== undefined, ...(position === undefined ? {} : { position }) }),
  }), {
    meta: ctx.meta, now: ctx.now, guessNew: () => true, attempts,
    ...(typeof token === 'string' ? { exhausted: () => undefined } : { busy: `no free token id after ${attempts} attempts` }),
  });
}

/** Preserve 6.4 keeps a card's first 6 and last 4 digits; other accounts get random tokens. */
function newTokenId(ctx: WriteContext, details: SourceDetails): string {
  const { tokenGeneration } = ctx.merchant.repository;
  if (tokenGeneration === 'MERCHANT_SUPPLIED') throw new Error('unreachable: refused before');
  return details.type === 'CARD' ? generateToken(tokenGeneration, details.number, randomDigits) : generateToken('RANDOM', '', randomDigits);
}

/** UNIQUE_TOKEN: every request stores the details under a new token. */
export async function createNew(ctx: WriteContext, plan: TokenPlan): Promise<WriteOutcome> {
  if (plan.scheme?.kind === 'refused') return { kind: 'refused', refusal: plan.scheme };
  // A generated id taken by another token of this repository: another is drawn.
  return (await writeToken(ctx, () => newTokenId(ctx, plan.details), plan, storedSource(ctx.gateway, plan.details), MAX_ATTEMPTS))!;
}

/** The update of `state` for `plan`: the events, and the outcome once they are appended. */
function decideUpdate(ctx: WriteContext, state: ValidToken, plan: TokenPlan, accountChanged: boolean) {
  const schemeToken = accountChanged ? stored(plan.scheme) : undefined;
  const events = decideToken(state, {
    type: 'UpdateTokenDetails', merchantId: ctx.merchant.id, tokenGeneration: ctx.merchant.repository.tokenGeneration,
    sourceOfFunds: storedSource(ctx.gateway, plan.details, sourceOfFundsOf(state)), accountChanged,
    ...(plan.verification.strategy === 'ACQUIRER' ? { verification: plan.verification } : {}),
    ...(schemeToken ? { schemeToken } : {}), ...(plan.shipping ? { shipping: plan.shipping } : {}), ...(plan.origin ? { origin: plan.origin } : {}),
    now: ctx.now,
  });
  const answer = (after: TokenState, position: bigint | undefined): WriteOutcome =>
    ({ kind: 'stored', state: valid(after), schemeDecided: accountChanged && plan.scheme !== undefined, ...(position === undefined ? {} : { position }) });
  return { events, answer };
}

/**
 * UNIQUE_CARD / UNIQUE_ACCOUNT_IDENTIFIER (spec rule 3): an account identifier already stored
 * returns its token, updated (TokenUpdated) when its details changed. The latest claim of the
 * reservation names the token; a reservation whose claim names a deleted token, or a token that has
 * since changed to another account, is replaced by a new reservation.
 * Not one handleCommand: each turn works on two streams (the reservation, then the token it names,
 * which may change from turn to turn), and a conflict on either starts the turn again from the
 * reservation. Each single-stream step is a handleCommand of one attempt on what the turn read.
 */
export async function createOrReuse(ctx: WriteContext, plan: TokenPlan): Promise<WriteOutcome> {
  const { gateway } = ctx;
  const account = accountOf(plan.details);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const reservation = await reservationOf(ctx, account);
    const claims = await gateway.store.readStream(reservation.stream);
    const claimed = claimData(claims);
    const history = claimed ? await readOwnStream(gateway.store, streams.token(ctx.merchant.repository.id, claimed.token)) : [];
    const state = foldTokenState(history);
    if (claimed && (state.status === 'DELETED' || (state.status === 'VALID' && !holds(gateway, state, account)))) {
      // The reservation of a deleted token whose release has not happened yet (under way, or cut
      // short by a crash), or of a token changed since to another account: released here, and the
      // next turn makes a new one. Never claimed again: its stream would keep linking the number to
      // the token it named, which a later deletion of that token could not undo.
      gateway.sealer.release(reservation.hash, reservation.id);
      continue;
    }
    if (!claimed) {
      if (plan.scheme?.kind === 'refused') return { kind: 'refused', refusal: plan.scheme };
      const token = newTokenId(ctx, plan.details);
      if ((await gateway.store.readStream(streams.token(ctx.merchant.repository.id, token))).length > 0) continue;
      if (!(await claim(ctx, reservation.stream, claims, token))) continue;
      const written = await writeToken(ctx, token, plan, storedSource(gateway, plan.details));
      if (written) return written;
      continue;
    }
    if (state.status !== 'VALID') {
      // The winner has not written its token yet: wait for it, then finish its work for it.
      if (!(await finishClaimNow(attempt))) continue;
      if (plan.scheme?.kind === 'refused') return { kind: 'refused', refusal: plan.scheme };
      const written = await writeToken(ctx, claimed.token, plan, storedSource(gateway, plan.details));
      if (written) return written;
      continue;
    }
    const updated = await handleCommand({ store: gateway.store, sandbox: gateway.sandbox }, streams.token(state.repositoryId, state.token), tokenAggregate,
      (token) => decideUpdate(ctx, valid(token), plan, false),
      { meta: ctx.meta, now: ctx.now, known: history, attempts: 1, exhausted: () => undefined });
    if (updated) return updated;
  }
  throw new Busy('the account is being stored by too many requests at once');
}

/**
 * The token named in sourceOfFunds.token gets the request's details. A new account identifier is
 * refused under Preserve 6.4 (the decider), and in a unique-account repository when another token
 * holds it; otherwise it is claimed for this token before the update (a claim lost to another
 * request, or a stale reservation released, is a conflict: read and decide again). The token is
 * read the careful way (handleCommand's `careful`): the decision claims a reservation and may write
 * another token before its own append checks the token as read, and those must not rest on a stale read.
 */
export async function updateNamed(ctx: WriteContext, plan: TokenPlan, token: string, field = 'sourceOfFunds.token'): Promise<WriteOutcome> {
  const { gateway, merchant } = ctx;
  const account = accountOf(plan.details);
  let waited = 0;
  return handleCommand({ store: gateway.store, sandbox: gateway.sandbox }, streams.token(merchant.repository.id, token), tokenAggregate, async (state) => {
    if (state.status !== 'VALID') throw new InvalidRequest(`Value '${token}' is invalid. No such token in the merchant's token repository`, field);
    const accountChanged = !holds(gateway, state, account);
    const { scheme } = plan;
    if (accountChanged && scheme?.kind === 'refused') return { events: [], answer: (): WriteOutcome => ({ kind: 'refused', refusal: scheme }) };
    if (accountChanged && merchant.repository.tokenManagement !== 'UNIQUE_TOKEN' && merchant.repository.tokenGeneration !== 'PRESERVE_6_4') {
      const reservation = await reservationOf(ctx, account);
      const claims = await gateway.store.readStream(reservation.stream);
      const claimed = claimData(claims);
      if (claimed && claimed.token !== token) {
        const other = foldTokenState(await readOwnStream(gateway.store, streams.token(merchant.repository.id, claimed.token)));
        if (other.status === 'VALID' && holds(gateway, other, account)) {
          throw storedElsewhere(claimed.token, plan);
        }
        // Another token's reservation it no longer holds (deleted, or changed to another account):
        // replaced by a new one on the next turn (see createOrReuse).
        if (other.status !== 'NONE') { gateway.sealer.release(reservation.hash, reservation.id); return CONFLICT; }
        // Claimed for a token not written yet: wait for its request, then finish its work; the
        // next turn finds the account held by that token and refuses. (Claiming it for this token
        // instead let two tokens hold one account.)
        if (await finishClaimNow(waited++)) await writeToken(ctx, claimed.token, plan, storedSource(gateway, plan.details));
        return CONFLICT;
      }
      if (claimed?.token !== token && !(await claim(ctx, reservation.stream, claims, token))) return CONFLICT;
    }
    return decideUpdate(ctx, state, plan, accountChanged);
  }, { meta: ctx.meta, now: ctx.now, ownStream: true, careful: true, busy: 'the token is being changed by too many requests at once' });
}

/**
 * Tokenize (PUT .../token/{tokenid}) in a MERCHANT_SUPPLIED repository: the token `token` is
 * created with the plan's details, or updated (updateNamed) when it exists, also when another
 * request created it meanwhile (an identical retry then changes nothing). A deleted id is not used
 * again: its stream holds the deleted token's history, whose keys were destroyed.
 * UNIQUE_CARD / UNIQUE_ACCOUNT_IDENTIFIER: the account is claimed for `token` on its reservation
 * stream before the token is written (the same reservations as createOrReuse, so the rule holds
 * across processes); an account another token holds is refused naming that token (the reference:
 * the gateway rejects a request that would store one account under two tokens). A claim whose
 * token is not written yet is waited for, then finished (its token written) as createOrReuse does,
 * so a request cut short between the two appends never leaves the account claimable twice.
 */
export async function createSupplied(ctx: WriteContext, plan: TokenPlan, token: string): Promise<WriteOutcome> {
  const { gateway, merchant } = ctx;
  const repositoryId = merchant.repository.id;
  const unique = merchant.repository.tokenManagement !== 'UNIQUE_TOKEN';
  const account = accountOf(plan.details);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const state = foldTokenState(await readOwnStream(gateway.store, streams.token(repositoryId, token)));
    if (state.status === 'VALID') return updateNamed(ctx, plan, token, 'tokenid');
    if (state.status === 'DELETED') {
      throw new InvalidRequest(`Value '${token}' is invalid. This token was deleted: a deleted token id cannot be used again`, 'tokenid');
    }
    if (plan.scheme?.kind === 'refused') return { kind: 'refused', refusal: plan.scheme };
    if (unique) {
      const reservation = await reservationOf(ctx, account);
      const claims = await gateway.store.readStream(reservation.stream);
      const claimed = claimData(claims);
      if (claimed && claimed.token !== token) {
        const other = foldTokenState(await readOwnStream(gateway.store, streams.token(repositoryId, claimed.token)));
        if (other.status === 'DELETED' || (other.status === 'VALID' && !holds(gateway, other, account))) {
          // A stale reservation (see createOrReuse): released; the next turn makes a new one.
          gateway.sealer.release(reservation.hash, reservation.id);
          continue;
        }
        if (other.status === 'VALID') throw storedElsewhere(claimed.token, plan);
        // Claimed for a token not written yet: wait for its request, then finish its work.
        if (!(await finishClaimNow(attempt))) continue;
        await writeToken(ctx, claimed.token, plan, storedSource(gateway, plan.details));
        continue;
      }
      if (!claimed && !(await claim(ctx, reservation.stream, claims, token))) continue;
    }
    const written = await writeToken(ctx, token, plan, storedSource(gateway, plan.details));
    if (written) return written;
  }
  throw new Busy('the token is being stored by too many requests at once');
}
