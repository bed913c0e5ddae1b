// The PostgreSQL event store when its server restarts (a file of its own: the restart's shutdown
// checkpoint is quick on a server with one small database): appends while it is down are 503
// StoreUnreachable, then work again; a subscription resumes from its position, nothing lost or
// repeated. Killed under appends: no connection's error ends the process, the store says it is
// unreachable until the server is back, and LISTEN reconnects by itself.
import t, { type Test } from 'tap';
import { StoreUnreachable } from '../../domain/errors.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { PostgresKeyStore } from '../../store/postgres/key-store.js';
import { sleep, waitFor } from '../helpers/poll.js';
import { events } from './contract.js';
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
    await waitFor(() => received.length === 2, 'the first events');

    await server.get().restart(async () => {
      const during = await other.append('rs-1', events(1)).then(() => undefined, (e: unknown) => e);
      t.type(during, StoreUnreachable, 'an append while the server is down: StoreUnreachable (503)');
      t.equal((during as StoreUnreachable).statusCode, 503);
      t.notMatch(String((during as Error).message), server.get().password, 'no password in the message');
    });
    const after = await other.append('rs-2', events(3)).then(() => 'ok', (e: unknown) => e);
    const retried = after === 'ok' ? 'ok' : await other.append('rs-2', events(3)).then(() => 'ok', (e: unknown) => e);
    t.equal(retried, 'ok', 'appends work again once the server is back');
    await waitFor(() => received.length === 5, 'the events appended after the restart');
    await sleep(200); // two more polls, which must repeat nothing
    t.same(received.map(summary), (await other.readAll()).map(summary), 'the subscription has every event once, in order');
    t.same(errors, [], 'and never gave up');
  });

  t.test('the postmaster killed under appends: no uncaught error, unreachable until it is back, LISTEN reconnected', async (t) => {
    const url = await server.get().createDatabase('killed');
    // No poll worth the name: only LISTEN (reconnected) can wake the subscription after the restart.
    const store = openStore(t, url, { pollIntervalMs: 600_000 });
    const other = openStore(t, url);
    const keys = new PostgresKeyStore(url, { health: store.health });
    t.teardown(() => keys.close());
    const received: RecordedEvent[] = [];
    const sub = store.subscribeAll({}, { onEvent: (e) => { received.push(e); } });
    t.teardown(() => sub.close());
    await store.append('k-0', events(1));
    await waitFor(() => received.length === 1, 'the first event');
    t.equal(store.unreachable, undefined, 'reachable');

    // Appends in flight on both stores' pools (connections checked out between statements, and idle).
    let appending = true;
    const failures: unknown[] = [];
    const writers = Array.from({ length: 6 }, async (_, w) => {
      for (let i = 0; appending; i++) {
        await (w % 2 ? other : store).append(`k-${w}-${i}`, events(1)).catch((e: unknown) => { failures.push(e); return sleep(20); }); // a writer that backs off after a refusal, as a client does
      }
    });
    await waitFor(() => received.length > 20, 'appends under way');
    await server.get().halt('kill');
    await waitFor(() => store.unreachable !== undefined, 'the store to say it is unreachable');
    t.type(store.unreachable, StoreUnreachable, 'unreachable: the port\'s StoreUnreachable');
    const keyError = (() => { try { keys.get('nothing'); return undefined; } catch (error) { return error; } })();
    t.type(keyError, StoreUnreachable, 'the key store: 503 StoreUnreachable');
    await waitFor(() => failures.length > 6, 'appends refused while it is down');
    appending = false;
    await Promise.all(writers);
    t.ok(failures.every((e) => e instanceof StoreUnreachable), 'every refused append: StoreUnreachable (503)');
    t.equal(store.unreachable !== undefined, true, 'still unreachable while the server is down');

    await server.get().resume();
    // No request: the LISTEN connection's return (or the subscription's retry) clears it.
    await waitFor(() => store.unreachable === undefined, 'reachable again, without a request');
    await other.append('k-after', events(1));
    // Events committed just before the kill may still be on their way: wait for this one by name.
    await waitFor(() => received.some((e) => e.stream === 'k-after'), 'the event appended by the other store after the restart (woken by LISTEN)');
    t.equal(received.filter((e) => e.stream === 'k-after').length, 1, 'received once');
    t.equal(keys.get('nothing'), undefined, 'the key store reconnects');
  });
}
