// The cost budget from Linux perf (bench/perf.ts) on hand-written `perf script -F tid,time,ip,sym`
// text: a sample's stage is its first JavaScript frame from the leaf up that has one (natives such
// as SQLite or a system call count for their caller), GC wherever it was called from, a thread
// without JavaScript by what its native frames do; only samples inside a window count, each
// 1/PERF_HZ s of CPU. (Whether perf can record here is not needed: no perf runs.)
import t from 'tap';
import { FLOOR_RULES, TOKENGATE_RULES } from '../../bench/budget.js';
import { kindOfStack, PERF_HZ, stageOfStack, stageTimesFromScript } from '../../bench/perf.js';
import { parseArgs } from '../../bench/run.js';

const DIST = 'file:///work/tokengate/dist';
const NM = '/work/tokengate/node_modules';
const js = (name: string, url: string) => `JS:*${name} ${url}:10:5`;

t.test('a stack: the first JavaScript frame with a stage, from the leaf up', async (t) => {
  t.equal(stageOfStack(['sqlite3VdbeExec', 'Statement::JS_run', js('writeOne', `${DIST}/store/sqlite/appends.js`), js('flush', `${DIST}/store/sqlite/event-store.js`)], TOKENGATE_RULES),
    'append', 'SQLite counts for the store that called it');
  t.equal(stageOfStack(['v8::internal::JsonStringifier::SerializeString', 'Builtins_CEntry', js('frozenJsonCopy', `${DIST}/lib/json.js`), js('decidePay', `${DIST}/domain/order/order.js`)], TOKENGATE_RULES),
    'decide', "lib/ inherits: the domain's");
  t.equal(stageOfStack(['tcp_sendmsg', 'node::StreamBase::Writev', js('doWrite', 'node:internal/streams/writable'), js('end', 'node:_http_outgoing'), js('pay', `${DIST}/services/order/payments.js`)], TOKENGATE_RULES),
    'response', "Node's streams inherit from the HTTP response");
  t.equal(stageOfStack([js('anonymous0', ''), js('answer', `${DIST}/services/order/payments.js`)], TOKENGATE_RULES),
    'response', "fast-json-stringify's compiled code (no script) is the response, whoever called it");
  t.equal(stageOfStack([js('validate10', ''), js('preValidationCallback', `${NM}/fastify/lib/handle-request.js`)], TOKENGATE_RULES), 'validation');
  t.equal(stageOfStack(['v8::internal::Scavenger::ScavengeObject', 'v8::internal::Heap::CollectGarbage', js('writeOne', `${DIST}/store/sqlite/appends.js`)], TOKENGATE_RULES),
    'gc', 'a collection triggered inside the store is GC');
  t.equal(stageOfStack(['v8::internal::ScavengerCollector::JobTask::Run', 'start_thread'], TOKENGATE_RULES), 'gc', "V8's helper threads");
  t.equal(stageOfStack(['ext4_sync_file', '__x64_sys_fdatasync', 'fdatasync', 'uv__fs_work', 'worker', 'start_thread'], TOKENGATE_RULES),
    'append', "the WAL's sync on libuv's pool");
  t.equal(stageOfStack(['llhttp__internal_execute', 'node::(anonymous namespace)::Parser::Execute', 'uv__read', 'uv_run'], TOKENGATE_RULES), 'parse');
  t.equal(stageOfStack(['do_epoll_wait', 'uv__io_poll', 'uv_run'], TOKENGATE_RULES), 'other');
  t.equal(stageOfStack([js('insertEvent', 'file:///work/tokengate/bench/floor.mjs'), js('pay', 'file:///work/tokengate/bench/floor.mjs')], FLOOR_RULES),
    'append', "the floor's functions by name");
});

t.test('a recording: samples inside each window, 1/PERF_HZ s each, none outside', async (t) => {
  const sample = (tid: number, seconds: string, frames: string[]) => [`${tid} ${seconds}: `, ...frames.map((f, i) => `\t    ${(0x7f00 + i).toString(16)} ${f}`), ''];
  const text = [
    ...sample(100, '10.000100', ['sqlite3VdbeExec', js('writeOne', `${DIST}/store/sqlite/appends.js`)]), // window 1
    ...sample(100, '10.000900', [js('decidePay', `${DIST}/domain/order/order.js`)]), // window 1
    ...sample(101, '10.001500', ['fdatasync', 'uv__fs_work']), // between the windows
    ...sample(100, '20.5', ['v8::internal::Heap::CollectGarbage']), // window 2 ("20.5": perf's six digits, not assumed)
    ...sample(100, '30.000000', [js('writeOne', `${DIST}/store/sqlite/appends.js`)]), // after both
  ];
  const windows = [{ fromUs: 10_000_000, toUs: 10_001_000 }, { fromUs: 20_000_000, toUs: 21_000_000 }];
  const [first, second] = await stageTimesFromScript(text, TOKENGATE_RULES, windows);
  const weight = 1e6 / PERF_HZ;
  const sum = (map: ReadonlyMap<string, number> | undefined) => [...(map?.values() ?? [])].reduce((a, b) => a + b, 0);
  t.equal(first?.stages.get('append'), weight);
  t.equal(first?.stages.get('decide'), weight);
  t.equal(first?.stages.get('gc'), 0);
  t.equal(sum(first?.stages), 2 * weight, 'nothing else in the first window');
  t.equal(first?.kinds.get('SQLite'), weight, 'the same samples by kind: SQLite below the store');
  t.equal(first?.kinds.get('own JavaScript'), weight);
  t.equal(sum(first?.kinds), sum(first?.stages), 'both views count every sample once');
  t.equal(second?.stages.get('gc'), weight);
  t.equal(sum(second?.stages), weight, 'the sample after both windows counts nowhere');
});

t.test('kinds: the native work below the first JavaScript frame, or whose JavaScript it is', async (t) => {
  t.equal(kindOfStack(['__x64_sys_pwrite64', 'entry_SYSCALL_64', 'unixWrite', 'sqlite3PagerCommitPhaseOne', 'Statement::JS_run', js('flush', `${DIST}/store/sqlite/event-store.js`)]),
    'SQLite', "SQLite's WAL write is SQLite's, not the kernel's");
  t.equal(kindOfStack(['tcp_sendmsg', 'entry_SYSCALL_64', 'node::StreamBase::Writev', js('doWrite', 'node:internal/streams/writable')]), 'kernel');
  t.equal(kindOfStack(['v8::internal::JsonStringifier::SerializeString', 'v8::internal::Builtin_JsonStringify', js('encodeEvent', 'file:///work/tokengate/bench/floor.mjs')]),
    'JSON.parse, JSON.stringify');
  t.equal(kindOfStack(['sha256_block_data_order', 'EVP_DigestUpdate', 'node::crypto::Hash::HashUpdate', js('hash', 'node:internal/crypto/hash')]), 'hashing');
  t.equal(kindOfStack(['Builtins_KeyedStoreIC_Megamorphic', js('frozenJsonCopy', `${DIST}/lib/json.js`)]), 'own JavaScript', "V8's builtins count for the JavaScript that called them");
  t.equal(kindOfStack([js('onSendEnd', `${NM}/fastify/lib/reply.js`)]), 'packages and Node (JavaScript)');
  t.equal(kindOfStack([js('anonymous0', '')]), 'compiled schemas (Ajv, fast-json-stringify)');
  t.equal(kindOfStack(['v8::internal::Scavenger::ScavengeObject', js('writeOne', `${DIST}/store/sqlite/appends.js`)]), 'gc');
  t.equal(kindOfStack(['do_epoll_wait', 'uv__io_poll']), 'other native');
});

t.test('--sampler: perf or cpu-prof, said in one line otherwise', async (t) => {
  t.equal(parseArgs(['--budget', '--sampler', 'cpu-prof'], {}).sampler, 'cpu-prof');
  t.equal(parseArgs(['--budget', '--sampler=perf'], {}).sampler, 'perf');
  t.equal(parseArgs(['--budget'], {}).sampler, undefined, 'default: perf when it can record, decided when the run starts');
  t.throws(() => parseArgs(['--budget', '--sampler', 'dtrace'], {}), { message: "bench: --sampler perf|cpu-prof, got 'dtrace'" });
});
