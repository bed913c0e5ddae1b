// The events table's rows as the PostgreSQL store reads them (store/postgres/rows.ts): `created`
// taken from the timestamptz's text as the store's connections have the server write it (ISO, UTC),
// the same instant and the same text as pg's own parse through a Date gives, whatever the form.
import t from 'tap';
import pg from 'pg';
import { isoCreated } from '../../store/postgres/rows.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { postgresForFile } from '../helpers/postgres.js';
import { events } from './contract.js';

const server = postgresForFile(t);
const viaDate = (text: string) => (pg.types.getTypeParser(1184) as (text: string) => Date)(text).toISOString();

t.test("created: the text Date.toISOString writes, as pg's parse through a Date", async (t) => {
  const texts: string[] = [];
  for (let ms = 0; ms < 1000; ms++) {
    const digits = String(ms).padStart(3, '0');
    // PostgreSQL leaves out a fraction's trailing zeros, and the fraction when it is zero.
    const trimmed = digits.replace(/0+$/, '');
    texts.push(`2026-11-28 17:43:09${trimmed === '' ? '' : `.${trimmed}`}+00`, `1999-12-31 23:59:59.${digits}999+00`);
  }
  // Forms the store's settings do not make (another zone, years past 9999 or before 1000, BC): through a Date.
  texts.push('2026-11-28 17:43:09.1239+05:30', '2026-11-28 17:43:09-08', '10000-01-01 00:00:00+00', '0099-01-01 00:00:00+00', '2026-11-28 17:43:09.383+00 BC');
  const differing = texts.filter((text) => isoCreated(text) !== viaDate(text));
  t.same(differing, [], `${texts.length} forms, each as through a Date`);
});

if (server) {
  t.test("a read's created is the instant a plain client reads, whatever the server's time zone and date style", async (t) => {
    const url = await server.get().createDatabase('rows');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    t.teardown(() => admin.end());
    const database = (await admin.query<{ d: string }>('SELECT current_database() AS d')).rows[0]!.d;
    // A database whose sessions write times in another zone and style unless told otherwise.
    await admin.query(`ALTER DATABASE ${database} SET TimeZone = 'America/Los_Angeles'`);
    await admin.query(`ALTER DATABASE ${database} SET DateStyle = 'SQL, DMY'`);
    const store = new PostgresEventStore(url, { cachedTail: 0, cachedStreams: 0 });
    t.teardown(() => store.close());
    await store.append('rows-1', events(3));
    const plain = new pg.Client({ connectionString: url });
    await plain.connect();
    t.teardown(() => plain.end());
    const { rows } = await plain.query<{ created: Date }>("SET DateStyle = 'ISO'; SELECT created FROM tokengate_events ORDER BY position").then((r) => (r as unknown as pg.QueryResult[])[1]!);
    const read = await store.readAll();
    t.same(read.map((e) => e.created), rows.map((r) => r.created.toISOString()), 'the same instants, as toISOString writes them');
    t.same((await store.readStream('rows-1')).map((e) => e.created), read.map((e) => e.created), 'a stream read the same');
  });
}
