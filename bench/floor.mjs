// The durable floor of the benchmark (issue 17): a bare Fastify server on the routes the bench
// hits, doing only the least a durable pay or token creation must do, so that tokengate's
// throughput can be compared with what a durable append costs on this stack and this disk.
//
//   auth        Basic credentials against a SHA-256 digest computed at start, timingSafeEqual
//               (the user rule of plugins/auth.ts: '' or merchant.<id> for a pay, merchant.<id>
//               for a token), in the route's onRequest hook.
//   validation  Fastify's route schemas (params and body), with the bounds of schemas/pay.ts and
//               schemas/token.ts for the fields the bench sends, objects closed like tokengate's
//               (additionalProperties false), Ajv with tokengate's options (app.ts).
//   lookup      a pay first looks its (order, transaction) key up among the recent payments in
//               memory: the least an exactly-once retry must do (see "retries" below).
//   encoding    one event of ~1 KB of JSON (JSON.stringify of the answer; a token's event also
//               holds the card number sealed with AES-256-GCM: never plaintext in an event).
//   append      one row in an `events` table of tokengate's shape (store/sqlite/rows.ts) in a
//               WAL-mode SQLite file; durability exactly as tokengate's default ('group',
//               store/sqlite/README.md): synchronous=NORMAL, every append requested in one
//               event-loop turn (or while a sync runs) in one BEGIN IMMEDIATE transaction, then ONE
//               fdatasync of the WAL at a time on libuv's thread pool (fs.fdatasync), and an
//               append answers only once a sync that started after its commit is done. WAL
//               checkpoints as tokengate's default too: wal_autocheckpoint=0 and PASSIVE
//               checkpoints on a worker thread at most every 100 ms once the WAL passed 4 MiB
//               (store/sqlite/checkpointer.ts).
//   response    the answer, an object of the shape tokengate answered (its real bodies, captured
//               by the bench: FLOOR_PAY_BODY, FLOOR_TOKEN_BODY) with this request's values, written
//               by Fastify's response schema (fast-json-stringify): the same size as tokengate's.
//
// Retries: the 2,000 most recently recorded payments are kept in memory (a Map by (order,
// transaction) key, least recently used out; tokengate's store caches 2,000 streams). A repeated
// identical pay found there appends nothing: it waits until that event is durable (it may be the
// one in flight) and answers the recorded answer through the same response schema (the same
// bytes); a repeat with another amount or currency is refused (400). A pay not found there is
// taken as new, as tokengate guesses a new order: its INSERT ... ON CONFLICT DO NOTHING on the
// UNIQUE (stream, revision) index is the exactly-once check, and an INSERT that finds the key
// taken (a retry of an older payment, or two identical pays in one turn) writes nothing and
// reads the recorded event in the same transaction, answered the same way. A SELECT before every
// pay costs a read transaction of its own (17 µs per pay in a profile on a busy machine): not the least.
//
// Not done, on purpose (tokengate does them; they are what the ratio to this floor measures):
// reading the token, deciding anything, read models, logs, load shedding, error bodies.
//
// The cost budget (bench/budget.ts, `npm run bench -- --budget`) attributes this file's self time
// to stages by function name: keep each stage's work in the functions its table names.
//
// Env: FLOOR_MERCHANTS_FILE (tokengate's merchants file), FLOOR_DB (the SQLite file to create),
// FLOOR_PAY_BODY, FLOOR_TOKEN_BODY (files holding tokengate's answers). Prints its port.
import { createCipheriv, createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`floor: ${name} is not set`);
  return value;
};
const dbPath = env('FLOOR_DB');
const payTemplate = JSON.parse(readFileSync(env('FLOOR_PAY_BODY'), 'utf8'));
const tokenTemplate = JSON.parse(readFileSync(env('FLOOR_TOKEN_BODY'), 'utf8'));

// ---------------------------------------------------------------------------------------- auth
const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest();
const NOBODY = sha256('no merchant has this password: it is never compared true');
/** Merchant id → { digest of the API password, token repository id }, computed once. */
const merchants = new Map(JSON.parse(readFileSync(env('FLOOR_MERCHANTS_FILE'), 'utf8')).merchants
  .map((m) => [m.id, { digest: sha256(m.apiPassword), repositoryId: m.repository.id }]));

function authenticate(header, merchantId, blankUserAllowed) {
  if (typeof header !== 'string' || !header.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const user = decoded.slice(0, colon);
  const merchant = merchants.get(merchantId);
  const same = timingSafeEqual(sha256(decoded.slice(colon + 1)), merchant ? merchant.digest : NOBODY);
  return same && merchant !== undefined && (user === `merchant.${merchantId}` || (blankUserAllowed && user === ''));
}
const unauthorized = (reply) => reply.code(401).send({ result: 'ERROR', error: { cause: 'INVALID_REQUEST', explanation: 'Invalid credentials.' } });
async function authPay(request, reply) {
  if (!authenticate(request.headers.authorization, request.params.merchantid, true)) return unauthorized(reply);
}
async function authToken(request, reply) {
  if (!authenticate(request.headers.authorization, request.params.merchantId, false)) return unauthorized(reply);
}

// ---------------------------------------------------------------------------------- validation
// The bounds of schemas/common.ts, schemas/pay.ts and schemas/token.ts for the fields the bench sends.
const str = (minLength, maxLength, pattern) => ({ type: 'string', minLength, maxLength, ...(pattern ? { pattern } : {}) });
const closed = (properties, required = []) => ({ type: 'object', properties, required, additionalProperties: false });
const MERCHANT_ID = str(1, 40, '^[0-9A-Za-z_-]+$');
const PayParams = closed({
  merchantid: MERCHANT_ID,
  tokenid: str(1, 40, '^[0-9A-Za-z]+$'),
  orderid: str(1, 16, '^[1-9][0-9]{10,15}$'),
  transactionid: str(1, 40),
}, ['merchantid', 'tokenid', 'orderid', 'transactionid']);
const PayBody = closed({
  apiOperation: { type: 'string', enum: ['PAY'] },
  card: closed({ securityCode: str(3, 4, '^[0-9]{3,4}$') }),
  transaction: closed({ amount: str(1, 14, '^[0-9]+(\\.[0-9]+)?$'), currency: str(3, 3, '^[A-Z]{3}$') }, ['amount', 'currency']),
}, ['apiOperation', 'transaction']);
const TokenParams = closed({ merchantId: MERCHANT_ID }, ['merchantId']);
// What tokengate requires by its logic (a card to store) is required here by the schema.
const TokenBody = closed({
  sourceOfFunds: closed({
    type: { type: 'string', enum: ['ACH', 'CARD', 'DIRECT_DEBIT_CANADA', 'WALLET'] },
    provided: closed({
      card: closed({
        expiry: closed({ month: str(1, 2, '^(0?[1-9]|1[0-2])$'), year: str(2, 2, '^[0-9]{2,2}$') }, ['month', 'year']),
        number: str(9, 19, '^[0-9]{9,19}$'),
        securityCode: str(3, 4, '^[0-9]{3,4}$'),
      }, ['expiry', 'number']),
    }, ['card']),
  }, ['type', 'provided']),
}, ['sourceOfFunds']);

// ------------------------------------------------------------------------------------ response
/** A response schema of the captured answer's shape (every number 'number': written as JSON does). */
function schemaOf(value) {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array', items: value.length > 0 ? schemaOf(value[0]) : {} };
  if (typeof value === 'object') return { type: 'object', properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaOf(v)])) };
  return { type: typeof value === 'bigint' ? 'number' : typeof value };
}

/**
 * A builder of answers: the captured answer with the values of this request at `slots` (path →
 * name of a value), copying only the objects on those paths. A slot missing from the captured
 * answer stops the floor at start: tokengate's answer changed shape, the floor must follow.
 */
function answerBuilder(template, slots, what) {
  const tree = {};
  for (const [path, name] of Object.entries(slots)) {
    const keys = path.split('.');
    let node = tree;
    let at = template;
    keys.forEach((key, i) => {
      if (at === null || typeof at !== 'object' || !(key in at)) throw new Error(`floor: tokengate's ${what} answer has no ${path}`);
      at = at[key];
      if (i === keys.length - 1) node[key] = name;
      else node = node[key] ??= {};
    });
  }
  const build = (node, from, values) => {
    const out = { ...from };
    for (const key of Object.keys(node)) out[key] = typeof node[key] === 'string' ? values[node[key]] : build(node[key], from[key], values);
    return out;
  };
  return function answer(values) { return build(tree, template, values); };
}

const payAnswer = answerBuilder(payTemplate, {
  merchant: 'merchantId', 'card.token': 'token', 'sourceOfFunds.token': 'token',
  'order.id': 'orderId', 'order.amount': 'amount', 'order.currency': 'currency', 'order.totalAuthorizedAmount': 'amount',
  'order.totalCapturedAmount': 'amount', 'order.creationTime': 'now', 'order.lastUpdatedTime': 'now', timeOfRecord: 'now',
  'transaction.id': 'transactionId', 'transaction.amount': 'amount', 'transaction.currency': 'currency',
}, 'pay');
const tokenAnswer = answerBuilder(tokenTemplate, {
  repositoryId: 'repositoryId', token: 'token', 'usage.lastUpdated': 'now', 'usage.lastUpdatedBy': 'merchantId',
  'sourceOfFunds.provided.card.number': 'masked', 'sourceOfFunds.provided.card.expiry': 'expiry',
}, 'token');

// ------------------------------------------------------------------------------------ encoding
// One key seals every card number of this process: written once, fsync'd, before the first event.
const cardKey = randomBytes(32);
{
  const fd = openSync(`${dbPath}.key`, 'w', 0o600);
  writeSync(fd, cardKey);
  fsyncSync(fd);
  closeSync(fd);
}
function sealCard(number) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', cardKey, iv);
  const sealed = Buffer.concat([cipher.update(number, 'utf8'), cipher.final()]);
  return `v1.${iv.toString('base64url')}.${sealed.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}
const encodeEvent = (data) => JSON.stringify(data);
/** A RANDOM token as tokengate's: '9' and 15 digits (domain/token/token-id.ts adds a Luhn digit; not needed here). */
const newToken = () => `9${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e6)).padStart(6, '0')}`;

// -------------------------------------------------------------------------------------- append
/**
 * The SQLite append (the default): { append, durableTo, close, failed }. With FLOOR_PG_URL the
 * append goes to PostgreSQL instead (bench/floor-postgres.mjs), naive or with group commit
 * (FLOOR_PG_MODE).
 */
function sqliteAppender(dbPath) {
  const db = new Database(dbPath);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL'); // tokengate's 'group' durability: the WAL is synced below, after the commit
  db.pragma('wal_autocheckpoint = 0'); // checkpoints on a worker thread, as tokengate's
  db.exec(`CREATE TABLE IF NOT EXISTS events (
    position   INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id   TEXT    NOT NULL UNIQUE,
    stream     TEXT    NOT NULL,
    revision   INTEGER NOT NULL,
    type       TEXT    NOT NULL,
    data       TEXT    NOT NULL,
    metadata   TEXT    NOT NULL,
    created    TEXT    NOT NULL,
    UNIQUE (stream, revision)
  )`);
  const insert = db.prepare(`INSERT INTO events (event_id, stream, revision, type, data, metadata, created)
    VALUES (?, ?, 0, ?, ?, ?, ?) ON CONFLICT (stream, revision) DO NOTHING`);
  const lookup = db.prepare('SELECT position, data FROM events WHERE stream = ? AND revision = 0');
  const walPath = `${dbPath}-wal`;

  let queue = [];
  let flushScheduled = false;
  let committed = 0;
  let durablePosition = 0;
  let syncing = false;
  let walFd;
  let failure;
  let waiters = [];
  let eventIds = 0;
  // What an earlier process committed may not have been synced: one sync now, and the whole file is
  // durable (group-sync.ts, syncAtOpen). A fresh file has no WAL yet.
  {
    try {
      const fd = openSync(walPath, 'r');
      fdatasyncSync(fd);
      closeSync(fd);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    committed = durablePosition = db.prepare('SELECT COALESCE(MAX(position), 0) AS head FROM events').get().head;
  }

  /** Resolves with { position, data }: data null when this append wrote the row, the stored event's data when its key was taken. */
  function append(stream, type, data, metadata, created) {
    if (failure) return Promise.reject(failure);
    return new Promise((resolve, reject) => {
      queue.push({ stream, type, data, metadata, created, resolve, reject });
      if (!flushScheduled && !syncing) {
        flushScheduled = true;
        setImmediate(flush);
      }
    });
  }

  function insertEvent(item) {
    const result = insert.run(`${process.pid}-${++eventIds}`, item.stream, item.type, item.data, item.metadata, item.created);
    if (result.changes === 1) return { position: Number(result.lastInsertRowid), data: null };
    const row = lookup.get(item.stream);
    return { position: row.position, data: row.data };
  }
  const writeBatch = db.transaction((batch) => batch.map(insertEvent));
  function flush() {
    flushScheduled = false;
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    let outcomes;
    try {
      outcomes = writeBatch.immediate(batch);
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    for (const outcome of outcomes) if (outcome.data === null && outcome.position > committed) committed = outcome.position;
    checkpointSoon();
    batch.forEach((item, i) => durableTo(outcomes[i].position).then(() => item.resolve(outcomes[i]), item.reject));
  }

  /** Resolves once a sync that started after `position` was committed is done (group-sync.ts). */
  function durableTo(position) {
    if (failure) return Promise.reject(failure);
    if (position <= durablePosition) return Promise.resolve();
    return new Promise((resolve, reject) => {
      waiters.push({ position, resolve, reject });
      syncSoon();
    });
  }

  function syncSoon() {
    if (syncing || waiters.length === 0) return;
    try {
      walFd ??= openSync(walPath, 'r');
    } catch (error) {
      failure = new Error(`floor: cannot open the WAL (${error.code})`);
      for (const waiter of waiters.splice(0)) waiter.reject(failure);
      return;
    }
    syncing = true;
    const target = committed;
    fdatasync(walFd, (error) => {
      syncing = false;
      const waiting = waiters;
      waiters = [];
      if (error) {
        failure = new Error(`floor: fdatasync of the WAL failed (${error.code})`);
        for (const waiter of waiting) waiter.reject(failure);
        return;
      }
      if (target > durablePosition) durablePosition = target;
      for (const waiter of waiting) {
        if (waiter.position <= durablePosition) waiter.resolve();
        else waiters.push(waiter);
      }
      syncSoon();
      // Appends that gathered while the sync ran commit now, in one transaction (group commit).
      if (!syncing && queue.length > 0 && !flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    });
  }

  // Checkpoints: store/sqlite/checkpointer.ts's policy, its worker, shortened.
  const CHECKPOINT_WORKER = `
  const { parentPort, workerData } = require('node:worker_threads');
  const db = new (require(workerData.module))(workerData.file);
  db.pragma('busy_timeout = 5000');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  parentPort.on('message', (message) => {
    if (message === 'close') { db.close(); parentPort.close(); return; }
    try { checkpoint.all(); parentPort.postMessage(null); } catch (error) { parentPort.postMessage(String(error && error.message || error)); }
  });`;
  let checkpointer;
  let checkpointRunning = false;
  let checkpointPending = false;
  let checkpointTimer;
  let lastCheckpoint = 0;
  function checkpointSoon() {
    if (checkpointRunning) { checkpointPending = true; return; }
    if (checkpointTimer !== undefined) return;
    if (checkpointer === undefined) {
      let bytes = 0;
      try { bytes = statSync(walPath).size; } catch { /* no WAL yet */ }
      if (bytes <= 4 * 1024 * 1024) return;
      checkpointer = new Worker(CHECKPOINT_WORKER, { eval: true, workerData: { module: createRequire(import.meta.url).resolve('better-sqlite3'), file: dbPath } });
      checkpointer.unref();
      checkpointer.on('message', (error) => {
        checkpointRunning = false;
        if (error !== null) failure ??= new Error(`floor: WAL checkpoint failed (${error})`);
        else if (checkpointPending) { checkpointPending = false; checkpointSoon(); }
      });
      checkpointer.on('error', (error) => { failure ??= error; });
    }
    const run = () => { checkpointTimer = undefined; lastCheckpoint = performance.now(); checkpointRunning = true; checkpointer.postMessage('run'); };
    const wait = lastCheckpoint + 100 - performance.now();
    if (wait <= 0) run();
    else checkpointTimer = setTimeout(run, wait).unref();
  }

  async function close() {
    // The appends in flight end (bounded: a sync that never returns is a failure).
    const deadline = performance.now() + 10_000;
    while (queue.length > 0 || flushScheduled || syncing || waiters.length > 0) {
      if (performance.now() > deadline) throw new Error('floor: appends still waiting after 10 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (checkpointer) await new Promise((resolve) => { checkpointer.once('exit', resolve); checkpointer.postMessage('close'); });
    if (walFd !== undefined) closeSync(walFd);
    db.close();
  }
  return { append, durableTo, close, failed: () => failure !== undefined };
}
const store = process.env.FLOOR_PG_URL
  ? await (await import('./floor-postgres.mjs')).postgresAppender(process.env.FLOOR_PG_URL, process.env.FLOOR_PG_MODE ?? 'group')
  : sqliteAppender(dbPath);
const { append, durableTo } = store;

/** Recently recorded payments by (order, transaction) key: { position, answer } (answer: the recorded object, never changed). */
const recent = new Map();
const RECENT_MAX = 2_000;
function remember(stream, position, answer) {
  recent.delete(stream);
  recent.set(stream, { position, answer });
  if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value);
}
/** The exactly-once lookup of a pay, in memory (a miss is checked by the INSERT's unique index). */
function findRecorded(stream) {
  return recent.get(stream);
}

// -------------------------------------------------------------------------------------- routes
const app = Fastify({
  logger: false,
  ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
});

/** A pay found recorded: once its event is durable, the recorded answer if the request is the same. */
async function replay(found, body, reply) {
  await durableTo(found.position);
  const recorded = found.answer;
  if (recorded.transaction.amount !== Number(body.transaction.amount) || recorded.transaction.currency !== body.transaction.currency) {
    return reply.code(400).send({ result: 'ERROR', error: { cause: 'INVALID_REQUEST', explanation: 'Another request was recorded under this order and transaction.' } });
  }
  return reply.code(201).send(recorded);
}

async function pay(request, reply) {
  const { merchantid, tokenid, orderid, transactionid } = request.params;
  const body = request.body;
  const stream = `order-${merchantid}-${orderid}/${transactionid}`;
  const found = findRecorded(stream);
  if (found !== undefined) return replay(found, body, reply);
  const now = new Date().toISOString();
  const amount = Number(body.transaction.amount);
  const answer = payAnswer({
    merchantId: merchantid, token: tokenid, orderId: Number(orderid), transactionId: transactionid,
    amount, currency: body.transaction.currency, now,
  });
  const outcome = await append(stream, 'PaymentRecorded', encodeEvent(answer), encodeEvent({ requestId: request.id, recordedAt: now }), now);
  if (outcome.data !== null) {
    const recorded = { position: outcome.position, answer: JSON.parse(outcome.data) };
    remember(stream, recorded.position, recorded.answer);
    return replay(recorded, body, reply);
  }
  remember(stream, outcome.position, answer);
  return reply.code(201).send(answer);
}

async function createToken(request, reply) {
  const merchantId = request.params.merchantId;
  const repositoryId = merchants.get(merchantId).repositoryId;
  const card = request.body.sourceOfFunds.provided.card;
  const now = new Date().toISOString();
  const masked = `${card.number.slice(0, 6)}${'x'.repeat(card.number.length - 10)}${card.number.slice(-4)}`;
  const expiry = `${card.expiry.month.padStart(2, '0')}${card.expiry.year}`;
  const sealed = sealCard(card.number);
  for (let attempt = 1; ; attempt++) {
    const token = newToken();
    const answer = tokenAnswer({ repositoryId, token, now, merchantId, masked, expiry });
    const outcome = await append(`token-${repositoryId}-${token}`, 'TokenCreated', encodeEvent({ ...answer, numberSealed: sealed }),
      encodeEvent({ requestId: request.id, recordedAt: now }), now);
    if (outcome.data === null) return reply.code(201).send(answer);
    if (attempt >= 3) throw new Error('floor: three random tokens taken in a row');
  }
}

app.put('/api/rest/version/3/merchant/:merchantid/token/:tokenid/order/:orderid/transaction/:transactionid', {
  onRequest: authPay,
  schema: { params: PayParams, body: PayBody, response: { 201: schemaOf(payTemplate) } },
}, pay);
app.post('/api/rest/version/100/merchant/:merchantId/token', {
  onRequest: authToken,
  schema: { params: TokenParams, body: TokenBody, response: { 201: schemaOf(tokenTemplate) } },
}, createToken);

// ------------------------------------------------------------------------------------ lifetime
async function close() {
  await app.close();
  await store.close();
}
const stop = () => { close().then(() => process.exit(store.failed() ? 1 : 0), () => process.exit(1)); };
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`floor listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
