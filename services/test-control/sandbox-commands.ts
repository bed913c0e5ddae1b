// The test-control API's commands on a merchant's sandbox stream: reset the merchant's data (a
// new epoch: store/epochs.ts says why not a wipe) and advance its clock. Each is one event of
// streams.sandbox, appended through the command handler, then applied to this process's sandbox
// before the answer (other processes follow it from the log): a read made after the answer sees
// the new epoch or the new time.
import { isSandboxEvent, streams, type SandboxEvent } from '../../domain/events.js';
import { decideAdvance, decideReset, evolveSandbox, initialSandboxState, type SandboxState } from '../../domain/sandbox/sandbox.js';
import type { MerchantProfile } from '../../merchants.js';
import type { Aggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import type { Sandbox } from './sandbox.js';

const sandboxAggregate: Aggregate<SandboxState, SandboxEvent> = {
  initialState: initialSandboxState, evolve: evolveSandbox, handles: isSandboxEvent,
};

function sandboxOfGateway(gateway: Gateway): Sandbox {
  const sandbox = gateway.sandbox;
  // Every gateway the composition root opens has one (root.ts).
  if (sandbox === undefined) throw new Error('the gateway was opened without its sandbox (root.ts openGateway)');
  return sandbox;
}

/** One command on the merchant's sandbox stream; its event applied here before `view` answers. */
function onSandbox<T>(gateway: Gateway, merchant: MerchantProfile, meta: RequestMeta, decide: (state: SandboxState, now: string) => SandboxEvent[], view: (event: SandboxEvent) => T): Promise<T> {
  const sandbox = sandboxOfGateway(gateway);
  return handleCommand(gateway, streams.sandbox(merchant.id), sandboxAggregate, (state, { now }) => {
    const events = decide(state, now);
    return {
      events,
      answer: (_after, position) => {
        const event = events[0] as SandboxEvent;
        if (position !== undefined) sandbox.apply({ ...event, position });
        return view(event);
      },
    };
  }, { meta: { ...meta, merchantId: merchant.id }, ownStream: true });
}

/** Reset the merchant's orders, sessions, transaction references, notifications, and its repository's tokens unless shared. */
export function resetMerchant(gateway: Gateway, merchant: MerchantProfile, meta: RequestMeta) {
  const sharedWith = sandboxOfGateway(gateway).sharingRepository(merchant.id);
  return onSandbox(gateway, merchant, meta, (state, now) => decideReset(state, {
    type: 'ResetMerchant', merchantId: merchant.id, repositoryId: merchant.repository.id, sharedWith, now,
  }), (event) => event.data);
}

/** Move the merchant's clock `byMs` forward. */
export function advanceClock(gateway: Gateway, merchant: MerchantProfile, byMs: number, meta: RequestMeta) {
  return onSandbox(gateway, merchant, meta, (state) => decideAdvance(state, {
    type: 'AdvanceClock', merchantId: merchant.id, byMs, realNowMs: Date.now(),
  }), (event) => event.data);
}

/** The merchant's clock: its time now and its lead over the real time. */
export function clockOf(gateway: Gateway, merchant: MerchantProfile) {
  const sandbox = sandboxOfGateway(gateway);
  return { merchantId: merchant.id, now: sandbox.now(merchant.id), offsetMs: sandbox.offsetMs(merchant.id) };
}

/**
 * Whether `stream` looks empty only because of a reset: a read model (the tokens') still holds its
 * document, while the stream read through the merchant's epoch has no event.
 */
export async function hiddenByReset(gateway: Gateway, stream: string): Promise<boolean> {
  const sandbox = gateway.sandbox;
  if (sandbox?.epochs.of(stream) === undefined) return false;
  return (await gateway.store.readStream(stream)).length === 0;
}
