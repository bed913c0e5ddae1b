// The request journal on PostgreSQL, following the log: an event of another process (another
// instance's request, its metadata still the row's JSON text) names no request of this one, and
// its metadata is not parsed to learn so; an event naming one of this process's requests is.
// Against a real server; skipped loudly without one.
import { parsesOf } from '../helpers/json-parse-count.js';
import t from 'tap';
import type { EventData, RecordedEvent } from '../../store/event-store.js';
import { REQUEST_ID_PREFIX } from '../../lib/request-ids.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { buildTestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { newEvent } from '../store/contract.js';

const server = postgresForFile(t);

if (server) {
  t.test("the journal parses no metadata of another process's events", async (t) => {
    const url = await server.get().createDatabase('journal_follow');
    const app = await buildTestApp(t, { eventStore: { kind: 'postgres', url } });
    const writer = new PostgresEventStore(url);
    t.teardown(() => writer.close());
    const delivered = new Set<string>();
    // Handed each event after the journal (observers in the order they came).
    const stop = app.gateway.observeLog((event: RecordedEvent) => { delivered.add(event.stream); });
    t.teardown(stop);
    const appended = async (stream: string, requestId: string, marker: string) => {
      const event: EventData = newEvent('ThingHappened', { n: 1 });
      event.metadata = { ...event.metadata, requestId, note: marker };
      await writer.append(stream, [event]);
      await waitFor(() => delivered.has(stream), `${stream} followed`);
    };

    const foreign = parsesOf('note-foreign-3b1d');
    await appended('other-1', 'Zq0otherProcess0000000-1', 'note-foreign-3b1d');
    t.equal(foreign(), 0, "another process's request: its metadata not parsed");

    // This process's prefix (as a request of this instance's would carry): parsed, looked up.
    const own = parsesOf('note-own-77a0');
    await appended('own-1', `${REQUEST_ID_PREFIX}zz`, 'note-own-77a0');
    t.equal(own(), 1, "a request id of this process's: parsed once");
  });
}
