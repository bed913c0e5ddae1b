// Crypto-shredding across a test-control reset: a reset hides a merchant's streams from the
// gateway's view (store/epochs.ts), not from the files. A token deleted before a reset whose
// shredding a crash cut short is still shredded at the next start, and Delete Token of a shared
// repository's token made from a session of a merchant reset since destroys that session's card
// key too: the shredder reads what a deleted token held whole.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { streams } from '../../domain/events.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { cardBody, tokenAuth } from '../helpers/app.js';
import { control, controlApp, createSession, createToken, SHARED_A, TEST1 } from './test-control.fixture.js';

/** Every sealed value in the events' data (the members named …Sealed). */
function sealedValues(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) sealedValues(v, out);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.endsWith('Sealed') && typeof v === 'string') out.push(v);
      else sealedValues(v, out);
    }
  }
  return out;
}
const sealedIn = (events: readonly RecordedEvent[]) => sealedValues(events.map((e) => e.data));

for (const reset of [false, true]) {
  t.test(`a TokenDeleted whose shredding a crash cut short, ${reset ? 'then its merchant reset' : 'no reset'}: shredded at the next start`, async (t) => {
    const eventStore = { kind: 'sqlite' as const, path: join(t.testdir({}), 'gateway.db') };
    const first = await controlApp(t, { eventStore });
    const { token } = await createToken(first, TEST1);
    const stream = streams.token(TEST1.repository.id, token);
    const history = await first.gateway.store.readStream(stream);
    const sealed = sealedIn(history);
    t.ok(sealed.length > 0 && sealed.every((s) => first.gateway.sealer.open(s) !== undefined), 'the card number is sealed and readable');
    // The crash between the append and the shredding: this process's shredder stopped first.
    await first.gateway.tokenShredder.stop();
    const now = new Date().toISOString();
    await first.gateway.store.append(stream, [{
      id: randomUUID(), type: 'TokenDeleted', data: { merchantId: TEST1.id, repositoryId: TEST1.repository.id, token, deletedAt: now },
      metadata: { correlationId: 'crash', merchantId: TEST1.id, recordedAt: now },
    }], { expectedRevision: BigInt(history.length - 1) });
    if (reset) t.equal((await control(first, 'POST', `/merchants/${TEST1.id}/reset`)).statusCode, 200, 'reset');
    await first.close();

    const second = await controlApp(t, { eventStore });
    await second.gateway.tokenShredder.settled();
    t.same(sealed.filter((s) => second.gateway.sealer.open(s) !== undefined), [], 'nothing of the deleted token opens after the restart');
  });
}

t.test('Delete Token of a shared repository\'s token made from a session of a merchant reset since: the session\'s card is gone too', async (t) => {
  const app = await controlApp(t, { eventStore: { kind: 'sqlite', path: join(t.testdir({}), 'gateway.db') } });
  const base = `/api/rest/version/100/merchant/${SHARED_A.id}`;
  const session = await createSession(app, SHARED_A);
  const updated = await app.inject({ method: 'PUT', url: `${base}/session/${session}`, headers: { authorization: tokenAuth(SHARED_A) }, payload: cardBody() });
  t.equal(updated.statusCode, 200, updated.body);
  const made = await app.inject({ method: 'POST', url: `${base}/token`, headers: { authorization: tokenAuth(SHARED_A) }, payload: { session: { id: session }, sourceOfFunds: { type: 'CARD' } } });
  t.equal(made.statusCode, 201, made.body);
  const sealed = sealedIn(await app.gateway.store.readStream(streams.session(SHARED_A.id, session)));
  t.ok(sealed.length > 0 && sealed.every((s) => app.gateway.sealer.open(s) !== undefined), 'the session holds the card, sealed');
  t.equal((await control(app, 'POST', `/merchants/${SHARED_A.id}/reset`)).statusCode, 200, 'reset (the shared repository keeps its tokens)');
  const deleted = await app.inject({ method: 'DELETE', url: `${base}/token/${made.json().token as string}`, headers: { authorization: tokenAuth(SHARED_A) } });
  t.equal(deleted.statusCode, 200, deleted.body);
  t.same(sealed.filter((s) => app.gateway.sealer.open(s) !== undefined), [], 'nothing of the session the token was made from opens at the answer');
});
