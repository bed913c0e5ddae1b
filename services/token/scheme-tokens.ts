// Scheme tokens: the decision a create request takes (by provisioning mode), and the reactor that
// records every later change as SchemeTokenStatusChanged: ASYNCHRONOUS provisioning finishing,
// ATTEMPT_SYNCHRONOUS retries, and lifecycle changes of the simulator (SUSPENDED, DEACTIVATED).
// Pending work is written into the events (schemeToken.nextActionAt), so after a restart the
// reactor finds it in the pending read model and carries on; several processes sharing a store may
// race, and the loser re-reads, finds the work done, and appends nothing.
import { randomBytes } from 'node:crypto';
import { detectBrand } from '../../domain/card.js';
import { TOKEN_EVENT_TYPES, type ProvisioningMode, type SchemeTokenDetails, type SchemeTokenProvider } from '../../domain/events.js';
import { decideSchemeTokenAtCreation, decideSchemeTokenDue, pushProvisionedSchemeToken, type SchemeTokenRefused, type SchemeTokenStored } from '../../domain/token/scheme-token.js';
import { decideToken } from '../../domain/token/token.js';
import type { MerchantProfile } from '../../merchants.js';
import { PENDING_SCHEME_TOKEN, pendingProjection, type PendingDoc } from '../../projections/pending.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { foldTokenState, tokenAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import { Reactor } from '../reactor.js';
import type { Resolution } from './token-sources.js';

const PREFIX: Record<SchemeTokenProvider, string> = { MDES: 'DWSPMC', VTS: 'VTS', AETS: 'AETS' };
/** A provider-assigned identifier (spec: schemeToken.tokenIdentifier, 1-64). */
export const newTokenIdentifier = (provider: SchemeTokenProvider | undefined) =>
  `${provider ? PREFIX[provider] : 'TSP'}${randomBytes(16).toString('hex').toUpperCase()}`;

/**
 * The scheme-token decision of a create request: push provisioning always (ACTIVE at once);
 * otherwise card tokens of a repository configured for scheme tokenization, in the request's
 * schemeTokenProvisioningMode or the repository's.
 */
export function schemeDecision(merchant: MerchantProfile, mode: ProvisioningMode | undefined, resolution: Resolution, now: string, delayMs: number): SchemeTokenRefused | SchemeTokenStored | undefined {
  const { details } = resolution;
  if (details.type !== 'CARD') return undefined;
  const card = { brand: detectBrand(details.number), expiry: details.expiry };
  if (resolution.pushProvisioned) {
    const schemeToken = pushProvisionedSchemeToken(card, '', now);
    return { kind: 'stored', schemeToken: { ...schemeToken, tokenIdentifier: newTokenIdentifier(schemeToken.provider) } };
  }
  if (!merchant.repository.schemeTokenization) return undefined;
  const decision = decideSchemeTokenAtCreation({
    card, mode: mode ?? merchant.repository.schemeTokenProvisioningMode, deviceAccount: resolution.deviceAccount,
    tokenIdentifier: '', now, delayMs,
  });
  return withIdentifier(decision);
}

function withIdentifier<T extends { schemeToken: SchemeTokenDetails }>(decision: T): T {
  const { schemeToken } = decision;
  if (schemeToken.tokenIdentifier === undefined) return decision;
  return { ...decision, schemeToken: { ...schemeToken, tokenIdentifier: newTokenIdentifier(schemeToken.provider) } };
}

export class SchemeTokenReactor extends Reactor {
  /** Pending work first (the tokens the pending read model lists), then new events, live. */
  async start(): Promise<void> {
    const from = this.readModels.checkpoint(pendingProjection.name);
    for (const { doc } of this.readModels.withPrefix(pendingProjection.name, PENDING_SCHEME_TOKEN)) {
      const { stream } = JSON.parse(doc) as PendingDoc;
      this.scheduleFrom(stream, foldTokenState(await this.store.readStream(stream)));
    }
    this.follow(from, (event) => this.onEvent(event));
  }

  private scheduleFrom(stream: string, state: ReturnType<typeof foldTokenState>): void {
    const at = state.status === 'VALID' ? state.schemeToken?.nextActionAt : undefined;
    if (at) this.schedule(stream, Date.parse(at) - Date.now(), () => this.act(stream));
  }

  private onEvent(event: RecordedEvent): void {
    if (!TOKEN_EVENT_TYPES.has(event.type)) return;
    const schemeToken = (event.data as { schemeToken?: SchemeTokenDetails }).schemeToken;
    if (schemeToken?.nextActionAt) this.schedule(event.stream, Date.parse(schemeToken.nextActionAt) - Date.now(), () => this.act(event.stream), true);
    else if (event.type === 'SchemeTokenStatusChanged' || event.type === 'TokenDeleted' || schemeToken) this.cancel(event.stream);
  }

  private async act(stream: string): Promise<void> {
    await handleCommand(this.deps, stream, tokenAggregate, (state, { now }) => {
      if (state.status !== 'VALID' || !state.card || !state.schemeToken?.nextActionAt) return { events: [], answer: () => undefined };
      const { schemeToken } = state;
      const next = decideSchemeTokenDue(schemeToken, state.card, { tokenIdentifier: schemeToken.tokenIdentifier ?? newTokenIdentifier(schemeToken.provider), now, delayMs: this.delayMs });
      if (!next) return { events: [], answer: () => this.scheduleFrom(stream, state) };
      return { events: decideToken(state, { type: 'ChangeSchemeTokenStatus', merchantId: state.merchantId, schemeToken: next }), answer: () => undefined };
    }, {
      meta: (e, { now, history }) => {
        const cause = history.at(-1);
        return { correlationId: cause?.metadata.correlationId ?? '', causationId: cause?.id ?? '', merchantId: e.data.merchantId, recordedAt: now, reactor: 'scheme-tokens' };
      },
      // Given up after that many conflicts, as before (the next start finds the work pending).
      exhausted: () => undefined,
    });
  }
}
