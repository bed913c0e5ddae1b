// The PostgreSQL event store when its server restarts (a file of its own: the restart's shutdown
// checkpoint is quick on a server with one small database): appends while it is down are 503
// StoreUnreachable, then work again; a subscription resumes from its position, nothing lost or repeated.
import t, { type Test } from 'tap';
import { StoreUnreachable } from '../../domain/errors.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { events, sleep, waitFor } from './contract.js';
import { postgresForFile } from '../helpers/postgres.js';

const server = postgresForFile(t);

function openStore(t: Test, url: string, options: ConstructorParameters<typeof PostgresEventStore>[1] = {}): PostgresEventStore {
  const store = new PostgresEventStore(url, options);
  t.teardown(() => store.close());
  return store;
}

const summary = (e: RecordedEvent) => `${e.stream}@${e.revision}#${e.position}`;

if (server) {
  t.test('the server restarts: appends meanwhile get 503 StoreUnreachable, a subscription resumes without a gap or a repeat', async (t) => {
    const url = await server.get().createDatabase('restart');
    const store = openStore(t, url, { pollIntervalMs: 100 });
    const other = openStore(t, url);
    const received: RecordedEvent[] = [];
    const errors: unknown[] = [];
    const sub = store.subscribeAll({}, { onEvent: (e) => { received.push(e); }, onError: (e) => { errors.push(e); } });
    t.teardown(() => sub.close());
    await other.append('rs-1', events(2));
    await waitFor(() => received.length === 2, 20_000, 'the first events');

    await server.get().restart(async () => {
      const during = await other.append('rs-1', events(1)).then(() => undefined, (e: unknown) => e);
      t.type(during, StoreUnreachable, 'an append while the server is down: StoreUnreachable (503)');
      t.equal((during as StoreUnreachable).statusCode, 503);
      t.notMatch(String((during as Error).message), server.get().password, 'no password in the message');
    });
    const after = await other.append('rs-2', events(3)).then(() => 'ok', (e: unknown) => e);
    const retried = after === 'ok' ? 'ok' : await other.append('rs-2', events(3)).then(() => 'ok', (e: unknown) => e);
    t.equal(retried, 'ok', 'appends work again once the server is back');
    await waitFor(() => received.length === 5, 20_000, 'the events appended after the restart');
    await sleep(200);
    t.same(received.map(summary), (await other.readAll()).map(summary), 'the subscription has every event once, in order');
    t.same(errors, [], 'and never gave up');
  });
}
