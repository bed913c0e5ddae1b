// Scheme tokens after the request: the reactor that records every later change as
// SchemeTokenStatusChanged: ASYNCHRONOUS provisioning finishing, ATTEMPT_SYNCHRONOUS retries, and
// lifecycle changes of the simulator (SUSPENDED, DEACTIVATED). What a create request decides is in
// scheme-token-requests.ts. Pending work is written into the events (schemeToken.nextActionAt), so
// after a restart the reactor finds it in the pending read model and carries on; several processes
// sharing a store may race, and the loser re-reads, finds the work done, and appends nothing.
import { TOKEN_EVENT_TYPES, type SchemeTokenDetails } from '../../domain/events.js';
import { decideSchemeTokenDue } from '../../domain/token/scheme-token.js';
import { decideToken } from '../../domain/token/token.js';
import { PENDING_SCHEME_TOKEN, pendingProjection, type PendingDoc } from '../../projections/pending.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { foldTokenState, tokenAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import { Reactor } from '../reactor.js';
import { newTokenIdentifier } from './scheme-token-requests.js';

export class SchemeTokenReactor extends Reactor {
  readonly name = 'scheme-tokens';
  override readonly eventTypes: ReadonlySet<string> = TOKEN_EVENT_TYPES;

  /** Pending work first (the tokens the pending read model lists), then the events after its checkpoint, live. */
  protected async prepare(): Promise<bigint> {
    const from = await this.readModels.checkpoint(pendingProjection.name);
    for (const { doc } of await this.readModels.withPrefix(pendingProjection.name, PENDING_SCHEME_TOKEN)) {
      const { stream } = JSON.parse(doc) as PendingDoc;
      this.scheduleFrom(stream, foldTokenState(await this.store.readStream(stream)));
    }
    return from;
  }

  private scheduleFrom(stream: string, state: ReturnType<typeof foldTokenState>): void {
    const at = state.status === 'VALID' ? state.schemeToken?.nextActionAt : undefined;
    if (at) this.scheduleAt(stream, Date.parse(at), stream, () => this.act(stream));
  }

  protected onEvent(event: RecordedEvent): void {
    const schemeToken = (event.data as { schemeToken?: SchemeTokenDetails }).schemeToken;
    if (schemeToken?.nextActionAt) this.scheduleAt(event.stream, Date.parse(schemeToken.nextActionAt), event.stream, () => this.act(event.stream), true);
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
        return { correlationId: cause?.metadata.correlationId ?? '', causationId: cause?.id ?? '', merchantId: e.data.merchantId, recordedAt: now, reactor: this.name };
      },
      // Given up after that many conflicts, as before (the next start finds the work pending).
      exhausted: () => undefined,
    });
  }
}
