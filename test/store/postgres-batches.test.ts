// Group commit on PostgreSQL (store/postgres/append-commit.ts): a batch with no conflict is one
// statement and one transaction; a batch with a conflict fails that append alone and commits the
// others; data holding the character between the batch's bodies is stored as written, and every
// event of a batch, its append's size and condition whatever they are, holds its own data and
// metadata (a batch short of bodies fails whole); data PostgreSQL's JSON functions cannot read goes the decided way and is stored as
// written; appends' conditions are checked by the same statement, or decided in order when one
// names a stream the batch writes; a store made by the first schema (or the third) is upgraded in
// place; an instance of version 4 appends through its own function on a store of version 5 and
// refuses it when it restarts; the append function's checks, conditions included, read the log by its indexes whatever
// the planner's statistics say; and two processes appending
// batches at once, conflicts among them, leave positions 1..n without a gap, each append's answer
// the position it holds in the log. The processes run the test run's build (test/helpers/build.ts).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t, { type Test } from 'tap';
import pg from 'pg';
import { ConditionFailedError, WrongExpectedRevisionError, type RecordedEvent } from '../../store/event-store.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { migrate, MIGRATIONS, SCHEMA_VERSION } from '../../store/postgres/schema.js';
import { events, newEvent } from './contract.js';
import { postgresForFile, rowsOf } from '../helpers/postgres.js';
import { BUILD } from '../helpers/build.js';

const server = postgresForFile(t);

function openStore(t: Test, url: string): PostgresEventStore {
  const store = new PostgresEventStore(url);
  t.teardown(() => store.close());
  return store;
}

const STORE = pathToFileURL(join(BUILD, 'store/postgres/event-store.js')).href;
// Each child: `turns` turns of 8 appends each, all in one event-loop turn: 6 to new streams of its
// own, 2 to a stream both children append to with the revision they last knew (one may lose).
const CHILD = `
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
const { PostgresEventStore } = await import(process.argv[1]);
const [url, go, name, turns] = process.argv.slice(2);
const store = new PostgresEventStore(url, { poolSize: 4 });
await store.headPosition();
console.log('ready');
while (!existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 5));
const event = () => ({ id: randomUUID(), type: 'Batched', data: { by: name, pad: 'x'.repeat(300) }, metadata: { correlationId: randomUUID(), recordedAt: new Date().toISOString() } });
const answered = [];
let shared = -1n;
for (let turn = 0; turn < Number(turns); turn++) {
  const appends = [];
  for (let i = 0; i < 6; i++) {
    const e = [event(), ...(i === 0 ? [event()] : [])];
    appends.push(store.append(name + '-' + turn + '-' + i, e, { expectedRevision: 'no_stream' }).then((r) => ({ ids: e.map((x) => x.id), r })));
  }
  for (let i = 0; i < 2; i++) {
    const e = [event()];
    appends.push(store.append('shared', e, { expectedRevision: shared < 0n ? 'any' : shared }).then((r) => ({ ids: e.map((x) => x.id), r }), (error) => ({ error: error.name })));
  }
  for (const a of await Promise.all(appends)) {
    if (a.r) { answered.push({ ids: a.ids, position: String(a.r.position), revision: String(a.r.nextExpectedRevision) }); if (a.ids.length === 1 && a.r.nextExpectedRevision > shared) shared = a.r.nextExpectedRevision; }
    else answered.push({ error: a.error });
  }
}
await store.close();
console.log(JSON.stringify(answered));
`;

interface Answered { ids?: string[]; position?: string; revision?: string; error?: string }

function runChildren(url: string, go: string, count: number, turns: number): Promise<Array<{ code: number | null; out: string; err: string }>> {
  let ready = 0;
  let allReady: () => void = () => {};
  const readyAll = new Promise<void>((resolve) => { allReady = resolve; });
  const runs = Array.from({ length: count }, (_, i) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    // Plain Node (without the test runner's loaders in NODE_OPTIONS).
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, STORE, url, go, `p${i}`, String(turns)],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      if (out === '' && String(chunk).startsWith('ready')) { ready += 1; if (ready === count) allReady(); }
      out += String(chunk);
    });
    child.stderr.on('data', (chunk) => { err += String(chunk); });
    child.once('exit', (code) => {
      if (ready < count && !out.startsWith('ready')) allReady();
      resolve({ code, out, err });
    });
  }));
  return readyAll.then(() => { writeFileSync(go, ''); return Promise.all(runs); });
}

if (server) {
  t.test('a batch without a conflict is written by one statement in one transaction, each append answered with its own revision and position', async (t) => {
    const url = await server.get().createDatabase('at_once');
    // The server counts the calls of tokengate_append (the one statement) in sessions opened from now on.
    await rowsOf(url, `ALTER DATABASE ${new URL(url).pathname.slice(1)} SET track_functions = 'pl'`);
    const store = openStore(t, url);
    await store.append('known', events(2));
    const results = await Promise.all([
      store.append('fresh-1', events(3), { expectedRevision: 'no_stream' }),
      store.append('known', events(1), { expectedRevision: 1n }),
      store.append('fresh-2', events(1), { expectedRevision: 'any' }),
      store.append('known-too', [newEvent('Quoted', { text: 'a "quoted" \\ back\nslash, é, 😀, \u0001 (the bodies\' separator)' })]),
    ]);
    t.same(results, [
      { nextExpectedRevision: 2n, position: 5n },
      { nextExpectedRevision: 2n, position: 6n },
      { nextExpectedRevision: 0n, position: 7n },
      { nextExpectedRevision: 0n, position: 8n },
    ]);
    const xmins = await rowsOf<{ x: string }>(url, 'SELECT DISTINCT xmin::text AS x FROM tokengate_events WHERE position > 2');
    t.equal(xmins.length, 1, 'one transaction');
    const log = await store.readAll();
    t.same(log.map((e) => `${e.stream}@${e.revision}#${e.position}`),
      ['known@0#1', 'known@1#2', 'fresh-1@0#3', 'fresh-1@1#4', 'fresh-1@2#5', 'known@2#6', 'fresh-2@0#7', 'known-too@0#8']);
    t.same(log.at(-1)?.data, { text: 'a "quoted" \\ back\nslash, é, 😀, \u0001 (the bodies\' separator)' }, 'data read back as written');
    const texts = await rowsOf<{ data: string }>(url, 'SELECT data::text FROM tokengate_events WHERE position = 8');
    t.equal(texts[0]?.data, JSON.stringify({ text: 'a "quoted" \\ back\nslash, é, 😀, \u0001 (the bodies\' separator)' }), 'stored as the JSON text it was given');
    // A session's statistics reach the server's counters when it ends (or idles a while).
    await store.close();
    const deadline = Date.now() + 20_000;
    let calls: string | undefined;
    while ((calls = (await rowsOf<{ calls: string }>(url, "SELECT calls::text FROM pg_stat_user_functions WHERE funcname = 'tokengate_append'"))[0]?.calls) !== '2' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    t.equal(calls, '2', 'one statement per batch: the first append, then the four');
  });

  t.test('a batch whose conditions hold is written by one statement; one naming a stream the batch writes is decided in order', async (t) => {
    const url = await server.get().createDatabase('conditions');
    await rowsOf(url, `ALTER DATABASE ${new URL(url).pathname.slice(1)} SET track_functions = 'pl'`);
    const store = openStore(t, url);
    await store.append('token', events(2));
    const held = await Promise.all([
      store.append('order-1', events(2), { expectedRevision: 'no_stream', condition: { stream: 'token', revision: 1n } }),
      store.append('order-2', events(1), { condition: { stream: 'nothing', revision: -1n } }),
      store.append('plain', events(1)),
    ]);
    t.same(held, [{ nextExpectedRevision: 1n, position: 4n }, { nextExpectedRevision: 0n, position: 5n }, { nextExpectedRevision: 0n, position: 6n }]);
    const calls = async () => (await rowsOf<{ calls: string }>(url, "SELECT calls::text FROM pg_stat_user_functions WHERE funcname = 'tokengate_append'"))[0]?.calls;
    // The condition stream written earlier in the batch: the decided way, each append seeing those before it.
    const settled = await Promise.allSettled([
      store.append('order-3', events(1), { condition: { stream: 'token', revision: 1n } }),
      store.append('token', events(1), { expectedRevision: 1n }),
      store.append('order-4', events(1), { condition: { stream: 'token', revision: 1n } }),
      store.append('order-5', events(1), { condition: { stream: 'token', revision: 2n } }),
    ]);
    t.same(settled.map((s) => s.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'], 'before the write its old revision holds; after it, the new');
    const failed = (settled[2] as PromiseRejectedResult).reason as unknown;
    t.ok(failed instanceof ConditionFailedError && failed.stream === 'order-4' && failed.actual === 2n, `order-4: ${String(failed)}`);
    t.same(settled.map((s) => s.status === 'fulfilled' ? s.value.position : undefined), [7n, 8n, undefined, 9n], 'positions without a gap');
    t.equal((await rowsOf<{ x: string }>(url, 'SELECT DISTINCT xmin::text AS x FROM tokengate_events WHERE position > 6')).length, 1, 'one transaction');
    t.same((await store.readStream('order-4')), [], 'nothing written for the failed one');
    await store.close();
    const deadline = Date.now() + 20_000;
    let seen: string | undefined;
    while ((seen = await calls()) !== '3' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    t.equal(seen, '3', 'one statement per batch: the first append, the conditioned batch, and the one that went the decided way');
  });

  t.test("each event of a batch written at once holds its own data and metadata, whatever its append's size or condition", async (t) => {
    const url = await server.get().createDatabase('own_bodies');
    await rowsOf(url, `ALTER DATABASE ${new URL(url).pathname.slice(1)} SET track_functions = 'pl'`);
    const store = openStore(t, url);
    await store.append('token', events(1));
    // Merchants' events of every shape: several to an append, a condition on some, bodies alike
    // but for a digit, bodies holding the separator's character and its escape's text.
    const made = (merchant: string, n: number) => Array.from({ length: n }, (_, i) => ({
      id: `${merchant}-${i}`, type: `Made${i}`,
      data: i === 1 ? { note: `\u0001${merchant}\u0001`, raw: '\\u0001', list: [i, { merchant }] } : { merchant, i },
      metadata: { correlationId: `corr-${merchant}-${i}`, merchantId: merchant, recordedAt: `2026-01-0${i + 1}` },
    }));
    const appends = [made('M1', 3), made('M2', 1), made('M3', 2), made('M4', 4), made('M5', 1)];
    const results = await Promise.all(appends.map((e, n) => store.append(`order-${n}`, e, n % 2 === 0
      ? { expectedRevision: 'no_stream', condition: { stream: 'token', revision: 0n } } : { expectedRevision: 'no_stream' })));
    t.same(results.map((r) => r.position), [4n, 5n, 7n, 11n, 12n]);
    const stored = await rowsOf<{ id: string; type: string; data: string; metadata: string }>(url,
      'SELECT id, type, data::text AS data, metadata::text AS metadata FROM tokengate_events WHERE position > 1 ORDER BY position');
    t.same(stored, appends.flat().map((e) => ({ id: e.id, type: e.type, data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) })),
      'every row: its own event\'s type, data and metadata, as the JSON text made at the append');
    // A session's statistics reach the server's counters when it ends (or idles a while).
    await store.close();
    const count = async () => (await rowsOf<{ calls: string }>(url,
      "SELECT calls::text FROM pg_stat_user_functions WHERE funcname = 'tokengate_append' AND pg_get_function_identity_arguments(funcid) LIKE '%bodies%'"))[0]?.calls;
    const deadline = Date.now() + 20_000;
    let calls: string | undefined;
    while ((calls = await count()) !== '2' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    t.equal(calls, '2', 'written by the one statement (the first append, then the five), not decided');
  });

  t.test('a conflict in a batch fails that append alone: the others commit, in one transaction', async (t) => {
    const url = await server.get().createDatabase('conflict');
    const store = openStore(t, url);
    await store.append('taken', events(1));
    const settled = await Promise.allSettled([
      store.append('c-1', events(1), { expectedRevision: 'no_stream' }),
      store.append('taken', events(1), { expectedRevision: 'no_stream' }),
      store.append('c-2', events(2), { expectedRevision: 'no_stream' }),
    ]);
    t.same(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
    t.type((settled[1] as PromiseRejectedResult).reason, WrongExpectedRevisionError);
    t.same(settled.map((s) => s.status === 'fulfilled' ? s.value.position : undefined), [2n, undefined, 4n], 'positions without a gap');
    const xmins = await rowsOf<{ x: string }>(url, 'SELECT DISTINCT xmin::text AS x FROM tokengate_events WHERE position > 1');
    t.equal(xmins.length, 1, 'one transaction');
    t.same((await store.readAll()).map((e) => e.position), [1n, 2n, 3n, 4n]);
  });

  t.test('data PostgreSQL\'s JSON functions refuse (\\u0000, a lone surrogate) is stored as written, its batch\'s others too', async (t) => {
    const url = await server.get().createDatabase('escapes');
    const store = openStore(t, url);
    const odd = [{ nul: 'a\u0000b' }, { lone: 'x\ud800y' }, { fine: 'plain' }];
    const results = await Promise.all(odd.map((data, i) => store.append(`odd-${i}`, [newEvent('Odd', data)])));
    t.same(results.map((r) => r.position), [1n, 2n, 3n]);
    t.same((await store.readAll()).map((e) => e.data), odd, 'read back equal');
  });

  t.test('a store made by the first schema is upgraded in place: its events kept, appends continue', async (t) => {
    const url = await server.get().createDatabase('upgrade');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    await migrate(client, 'events', MIGRATIONS.slice(0, 1));
    await client.query(`INSERT INTO tokengate_events VALUES (1, 'id-1', 'old', 0, 'Old', '{"a":1}', '{}', now())`);
    const store = openStore(t, url);
    const result = await store.append('old', events(1), { expectedRevision: 0n });
    t.same(result, { nextExpectedRevision: 1n, position: 2n });
    const { rows } = await client.query("SELECT version FROM tokengate_schema WHERE component = 'events'");
    t.same(rows, [{ version: SCHEMA_VERSION }]);
  });

  t.test('a store of schema version 3 is upgraded (to 4 and on): its events kept, conditions checked by the one statement; version 4\'s function still answers an older instance', async (t) => {
    const url = await server.get().createDatabase('upgrade_3');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    await migrate(client, 'events', MIGRATIONS.slice(0, 3));
    const old = [{ n: 0, o: 0, s: 'token', x: 'no_stream', i: 'old-1', t: 'Old', d: {}, m: {} }];
    t.not((await client.query<{ r: unknown }>("SELECT tokengate_append($1, now(), 'v3') AS r", [JSON.stringify(old)])).rows[0]?.r, null, 'written by version 3');
    const store = openStore(t, url);
    t.same(await store.append('order', events(1), { condition: { stream: 'token', revision: 0n } }), { nextExpectedRevision: 0n, position: 2n });
    const stale = [{ n: 0, o: 0, s: 'order-2', x: 'any', i: 'new-1', t: 'New', d: {}, m: {}, c: 'token', cr: '-1' }];
    t.equal((await client.query<{ r: unknown }>("SELECT tokengate_append($1, now(), 'v4') AS r", [JSON.stringify(stale)])).rows[0]?.r, null, 'a stale condition: NULL, nothing written');
    t.same(await store.readStream('order-2'), []);
    const { rows } = await client.query("SELECT version FROM tokengate_schema WHERE component = 'events'");
    t.same(rows, [{ version: SCHEMA_VERSION }]);
  });

  t.test('an instance of version 4 keeps appending through its own function on a store of version 5, and refuses it when it restarts', async (t) => {
    const url = await server.get().createDatabase('older_instance');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    await migrate(client, 'events', MIGRATIONS.slice(0, 4));
    const store = openStore(t, url);
    t.same(await store.append('token', events(1)), { nextExpectedRevision: 0n, position: 1n }, 'the store upgraded to version 5');
    // What version 4's code sends: bodies inside the batch's JSON, three parameters.
    const batch = [
      { n: 0, o: 0, s: 'v4-order', x: 'no_stream', i: 'v4-1', t: 'Old', d: { merchant: 'M1' }, m: { merchantId: 'M1' }, c: 'token', cr: '0' },
      { n: 0, o: 1, s: 'v4-order', x: 'no_stream', i: 'v4-2', t: 'Old', d: { merchant: 'M1', second: true }, m: { merchantId: 'M1' } },
      { n: 1, o: 0, s: 'v4-other', x: 'any', i: 'v4-3', t: 'Old', d: { merchant: 'M2' }, m: { merchantId: 'M2' } },
    ];
    t.same((await client.query<{ r: string[] | null }>("SELECT tokengate_append($1, now(), 'v4') AS r", [JSON.stringify(batch)])).rows[0]?.r, ['1', '-1', '-1'], 'written by version 4\'s function');
    t.same((await store.readAll({ fromPosition: 1n })).map((e) => [e.id, e.data, e.metadata]),
      batch.map((e) => [e.i, e.d, e.m]), 'its events as it sent them');
    await t.rejects(migrate(client, 'events', MIGRATIONS.slice(0, 4)),
      { message: "the database's events schema is version 5, newer than this tokengate knows (4): upgrade tokengate" }, 'a restart of version 4 refuses the store');
    t.same((await client.query("SELECT version FROM tokengate_schema WHERE component = 'events'")).rows, [{ version: SCHEMA_VERSION }]);
  });

  t.test('a batch whose bodies are fewer than its events fails whole: no event is written without its own data', async (t) => {
    const url = await server.get().createDatabase('bodies_short');
    const store = openStore(t, url);
    await store.headPosition();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    const batch = [0, 1].map((k) => ({ n: k, o: 0, k, s: `short-${k}`, x: 'no_stream', i: `short-${k}`, t: 'Short' }));
    await t.rejects(client.query("SELECT tokengate_append($1, $2, now(), 'short') AS r", [JSON.stringify(batch), ['{"a":1}', '{}', '{"b":2}'].join('\u0001')]),
      /null value in column "metadata"/, 'the second event has no metadata: refused by the table');
    t.same((await client.query('SELECT count(*)::int AS n FROM tokengate_events')).rows, [{ n: 0 }], 'nothing written');
  });

  t.test('the append function reads the log by its indexes only, however much the table grew since the planner last looked', async (t) => {
    const url = await server.get().createDatabase('plans');
    const store = openStore(t, url);
    await store.headPosition();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    // `count` events after the head, four to a stream.
    const fill = (count: number) => client.query(
      `INSERT INTO tokengate_events SELECT h + g, 'fill-' || (h + g), 'fill-' || ((h + g) / 4), (h + g) % 4, 'Filled', '{"pad":"xxxxxxxxxxxxxxxxxxxxxxxx"}', '{}', now()
         FROM generate_series(1, ${count}) g, (SELECT coalesce(max(position), 0) AS h FROM tokengate_events) head`);
    const plans: string[] = [];
    client.on('notice', (notice) => plans.push(notice.message ?? ''));
    await client.query("LOAD 'auto_explain'");
    await client.query("SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice");
    let calls = 0;
    const append = async () => {
      const call = calls++;
      // Half the appends carry a condition that holds (fill-1 is at revision 3).
      const batch = Array.from({ length: 10 }, (_, i) => ({
        n: i, o: 0, k: i, s: `plan-${call}-${i}`, x: 'no_stream', i: `plan-${call}-${i}`, t: 'Planned',
        ...(i % 2 === 0 ? { c: 'fill-1', cr: '3' } : {}),
      }));
      const bodies = batch.flatMap(() => [JSON.stringify({ call }), '{}']).join('\u0001');
      const { rows } = await client.query<{ r: string[] | null }>("SELECT tokengate_append($1, $2, now(), 'plans') AS r", [JSON.stringify(batch), bodies]);
      t.not(rows[0]?.r, null, `call ${call} wrote its batch`);
    };
    // A session's plan of the function's statement is made while the log is small (more calls than
    // PostgreSQL's five custom plans, after which it keeps a generic one), then the log grows
    // eightfold with no new statistics (between two of autovacuum's analyses), and the same
    // session appends again with the plan it kept.
    await fill(3000);
    await client.query('ANALYZE tokengate_events');
    for (let i = 0; i < 8; i++) await append();
    await fill(21000);
    for (let i = 0; i < 4; i++) await append();
    const function_plans = plans.filter((plan) => plan.includes('tokengate_events') && plan.includes('json_to_recordset'));
    t.ok(function_plans.length >= 12, `the function's statement was explained (${function_plans.length} plans)`);
    const scans = function_plans.flatMap((plan) => plan.split('\n').filter((line) => line.includes('Seq Scan on tokengate_events')));
    t.same(scans, [], 'no plan scans the whole log');
  });

  t.test('two processes appending batches at once, conflicts among them: positions 1..n, each answer the position its events hold', async (t) => {
    const url = await server.get().createDatabase('two_processes');
    const reader = openStore(t, url);
    await reader.headPosition();
    const go = join(t.testdir(), 'go');
    // A reader paging from the last position it saw, all along: it must never skip one.
    const seen: RecordedEvent[] = [];
    let running = true;
    const reading = (async () => {
      while (running) {
        seen.push(...await reader.readAll({ fromPosition: seen.at(-1)?.position ?? 0n, maxCount: 500 }));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const children = await runChildren(url, go, 2, 40);
    running = false;
    await reading;
    for (const child of children) t.equal(child.code, 0, `a child exited 0 ${child.err.slice(-2000)}`);
    const answered = children.flatMap((c) => JSON.parse(c.out.split('\n').filter((l) => l.startsWith('['))[0] ?? '[]') as Answered[]);
    const log = await reader.readAll();
    t.same(log.map((e) => e.position), log.map((_, i) => BigInt(i + 1)), 'positions 1..n, no gap');
    seen.push(...await reader.readAll({ fromPosition: seen.at(-1)?.position ?? 0n }));
    t.same(seen.map((e) => e.position), log.map((e) => e.position), 'the reader saw every position once, in order');
    const byId = new Map(log.map((e) => [e.id, e]));
    const accepted = answered.filter((a) => a.ids !== undefined);
    t.equal(accepted.length + answered.filter((a) => a.error === 'WrongExpectedRevisionError').length, 2 * 40 * 8, 'every append answered: accepted or a revision conflict');
    t.ok(accepted.length > 2 * 40 * 6, 'the shared stream took some appends');
    t.equal(log.length, accepted.reduce((n, a) => n + (a.ids?.length ?? 0), 0), 'the log holds the accepted events, nothing else');
    const wrong = accepted.filter((a) => {
      const last = byId.get(a.ids?.at(-1) ?? '');
      return last === undefined || String(last.position) !== a.position || String(last.revision) !== a.revision;
    });
    t.same(wrong, [], 'each accepted append answered the position and revision its last event holds');
    const shared = log.filter((e) => e.stream === 'shared').map((e) => e.revision);
    t.same(shared, shared.map((_, i) => BigInt(i)), 'the shared stream: revisions 0..n');
  });
}
