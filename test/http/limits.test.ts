// Overload and limits: 503 SERVER_BUSY beyond MAX_IN_FLIGHT, 413 beyond BODY_LIMIT, malformed
// HTTP and slow requests answered in the gateway's shape.
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { buildApp } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { cardBody, createToken, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';
import { bodyStart, exchange, parseResponse, rawRequest } from '../helpers/raw.js';
import { budget } from '../helpers/slowdown.js';
import { startServer } from '../helpers/server.js';

const build = async (t: Test, limits: Record<string, number>, onDisk = false) => {
  // On disk, a request awaits its write: requests overlap as they do under load.
  const eventStore = onDisk ? { kind: 'sqlite' as const, path: join(t.testdir(), 'gateway.db') } : { kind: 'memory' as const };
  const app = await buildApp({ eventStore, merchants: parseMerchants(MERCHANTS, 'test'), limits });
  t.teardown(() => app.close());
  return app;
};

t.test('beyond MAX_IN_FLIGHT requests in progress, new ones get 503 SERVER_BUSY at once', async (t) => {
  const app = await build(t, { maxInFlight: 2 }, true);
  const token = await createToken(app as never);
  const pays = Array.from({ length: 6 }, (_, i) => app.inject({
    method: 'PUT', url: payPath(M1.id, token, '10000000001', String(i)), headers: { authorization: payAuth(M1) },
    payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } },
  }));
  const answers = await Promise.all(pays);
  const busy = answers.filter((a) => a.statusCode === 503);
  t.ok(busy.length > 0, 'some requests are refused');
  t.ok(answers.some((a) => a.statusCode === 201), 'the others are served');
  t.same(busy[0]?.json(), { error: { cause: 'SERVER_BUSY', explanation: busy[0]?.json().error.explanation }, result: 'ERROR' });
  t.match(busy[0]?.json().error.explanation, 'MAX_IN_FLIGHT 2');
  t.equal(busy[0]?.headers['retry-after'], '1');
  const recorded = (await app.gateway.store.readAll()).filter((e) => e.type === 'PaymentRecorded').length;
  t.equal(recorded, answers.filter((a) => a.statusCode === 201).length, 'a refused request records nothing');
  const later = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '0'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(later.statusCode, 201, 'once the load is gone, requests are served again');
});

t.test('a body beyond BODY_LIMIT is refused with 413 in the gateway shape', async (t) => {
  const app = await build(t, { bodyLimit: 1024 });
  const res = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload: JSON.stringify({ ...cardBody(), correlationId: 'x'.repeat(2000) }) });
  t.equal(res.statusCode, 413);
  t.equal(res.json().error.cause, 'INVALID_REQUEST');
  t.equal(res.json().result, 'ERROR');
  t.equal((await app.gateway.store.headPosition()), 0n);
});

t.test('malformed HTTP and headers that never finish get gateway-shaped answers from the real server', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const server = await startServer({ EVENT_STORE: 'memory:', MERCHANTS_FILE: join(dir, 'merchants.json'), REQUEST_TIMEOUT_MS: '500' });
  t.teardown(() => server.stop('SIGKILL'));
  const { port } = new URL(server.url);
  const exchange = (payload: string, end: boolean) => new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => { socket.write(payload); if (end) socket.end(); });
    let data = '';
    socket.on('data', (chunk) => { data += String(chunk); });
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.setTimeout(budget(5000), () => { socket.destroy(); resolve(data); });
  });
  const garbage = await exchange('THIS IS NOT HTTP\r\n\r\n', true);
  t.match(garbage, /^HTTP\/1\.1 400 /);
  t.match(garbage, '{"error":{"cause":"INVALID_REQUEST","explanation":"Malformed HTTP request"},"result":"ERROR"}');
  const slow = await exchange(`PUT /api/rest/version/3/merchant/${M1.id}/token/1/order/10000000001/transaction/1 HTTP/1.1\r\nHost: x\r\n`, false);
  t.match(slow, /^HTTP\/1\.1 408 /, 'a request whose headers never finish times out');
  t.match(slow, 'REQUEST_TIMEOUT_MS');
});

t.test('beyond MAX_EVENT_LOOP_DELAY_MS of event-loop delay, requests get 503 SERVER_BUSY', async (t) => {
  const app = await build(t, { maxEventLoopDelayMs: 50 });
  await app.ready();
  // Block the event loop long enough for under-pressure's next sample (every second) to see it.
  const until = Date.now() + 1300;
  while (Date.now() < until) { /* busy */ }
  const busy = await eventually(async () => {
    const res = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody() });
    return res.statusCode === 503 ? res : undefined;
  }, { timeoutMs: 2000, intervalMs: 50 });
  t.ok(busy, 'a request during the measured delay is refused');
  t.equal(busy?.json().error.cause, 'SERVER_BUSY');
  t.match(busy?.json().error.explanation, 'eventLoopDelay');
});

/** An app listening on 127.0.0.1 (a port of its own), with its port. */
const listening = async (t: Test, limits: Record<string, number>, setup?: (app: FastifyInstance) => void) => {
  const app = await build(t, { authFailureLimit: 1_000_000, ...limits });
  setup?.(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port };
};

t.test('clients that dribble their bodies hold no in-flight slot (MAX_IN_FLIGHT 2)', async (t) => {
  let started = 0;
  const { app, port } = await listening(t, { maxInFlight: 2 }, (app) => app.addHook('onRequest', async () => { started++; }));
  const token = await createToken(app as never);
  const body = JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } });
  // Two valid pays that send their headers and then one byte of body every 100 ms.
  const slow = [1, 2].map((i) => {
    const raw = rawRequest('PUT', payPath(M1.id, token, `1000000000${i}`, '1'), { authorization: payAuth(M1) }, body);
    const socket = connect(port, '127.0.0.1');
    let sent = bodyStart(raw) + 1;
    let answer = '';
    socket.on('data', (chunk) => { answer += String(chunk); });
    socket.on('error', () => {});
    socket.write(raw.slice(0, sent));
    const timer = setInterval(() => { if (sent < raw.length - 1) socket.write(raw[sent++]!); }, 100);
    t.teardown(() => { clearInterval(timer); socket.destroy(); });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    return { finish: async () => { clearInterval(timer); socket.write(raw.slice(sent)); await closed; return parseResponse(answer); } };
  });
  t.ok(await eventually(() => started >= 3), 'both slow requests have been received up to their bodies');
  const third = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000003', '1'), headers: { authorization: payAuth(M1) }, payload: body });
  t.equal(third.statusCode, 201, `a third request is served while two bodies dribble in (${third.body.slice(0, 200)})`);
  const info = await exchange(port, rawRequest('GET', '/api/rest/version/100/information', {}));
  t.equal(parseResponse(info).status, 200, 'and so is Check Gateway');
  for (const request of slow) {
    const answer = await request.finish();
    t.equal(answer.status, 201, 'a slow body, once complete, is served like any other');
  }
  t.equal(app.inFlight(), 0, 'every slot is free again');
});

t.test('Expect other than 100-continue: 417 in the gateway shape (no body for HEAD)', async (t) => {
  const { port } = await listening(t, {});
  const post = parseResponse(await exchange(port, rawRequest('POST', tokenPath(M1.id), { authorization: tokenAuth(M1), expect: 'garbage' }, JSON.stringify(cardBody()))));
  t.equal(post.status, 417);
  t.match(post.headers['content-type'], /^application\/json/);
  t.equal(post.body, '{"error":{"cause":"INVALID_REQUEST","explanation":"The Expect header is not supported: only 100-continue is"},"result":"ERROR"}');
  t.notMatch(post.body, '5123450000000008');
  const head = parseResponse(await exchange(port, rawRequest('HEAD', '/api/rest/version/100/information', { expect: 'garbage' })));
  t.equal(head.status, 417);
  t.equal(head.body, '', 'a response to HEAD has no body');
  const go = await exchange(port, rawRequest('POST', tokenPath(M1.id), { authorization: tokenAuth(M1), expect: '100-continue' }, JSON.stringify(cardBody())));
  t.match(go, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /, 'Expect: 100-continue still works');
});

t.test('Node-level refusals of a HEAD request have no body; of other methods, the gateway body', async (t) => {
  const { port } = await listening(t, {});
  const big = 'a'.repeat(20_000);
  const info = '/api/rest/version/100/information';
  const head = parseResponse(await exchange(port, `HEAD ${info} HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`));
  t.equal(head.status, 431);
  t.equal(head.body, '', 'HEAD: no body');
  const get = parseResponse(await exchange(port, `GET ${info} HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`));
  t.equal(get.status, 431);
  t.equal(get.body, '{"error":{"cause":"INVALID_REQUEST","explanation":"The request headers are too large"},"result":"ERROR"}');
  // A HEAD with a huge URL: the request line never ends.
  const longUrl = parseResponse(await exchange(port, `HEAD ${info}?${big} HTTP/1.1\r\nHost: x\r\n\r\n`));
  t.equal(longUrl.status, 431);
  t.equal(longUrl.body, '');
  // Pipelined: the client takes the refusal as the answer to its oldest unanswered request.
  const getFirst = parseResponse(await exchange(port, `GET ${info} HTTP/1.1\r\nHost: x\r\n\r\nHEAD ${info} HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`));
  t.equal(getFirst.status, 431);
  t.match(getFirst.body, '"The request headers are too large"', 'a refusal read as the answer to a pipelined GET: the gateway body');
  const headFirst = parseResponse(await exchange(port, `HEAD ${info} HTTP/1.1\r\nHost: x\r\n\r\nGET ${info} HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`));
  t.equal(headFirst.status, 431);
  t.equal(headFirst.body, '', 'a refusal read as the answer to a pipelined HEAD: no body');
  // Kept alive: a GET answered, then a refused HEAD on the same connection.
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let data = '';
  socket.on('data', (chunk) => { data += String(chunk); });
  const closed = new Promise((resolve) => socket.on('close', resolve));
  socket.write(`GET ${info} HTTP/1.1\r\nHost: x\r\n\r\n`);
  t.ok(await eventually(() => data.includes('"status":"OPERATING"}')), 'the GET is answered');
  const first = data.length;
  socket.write(`HEAD ${info} HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`);
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, budget(5000)))]); // a bound: the refusal closes the connection
  socket.destroy();
  const refused = parseResponse(data.slice(first));
  t.equal(refused.status, 431);
  t.equal(refused.body, '', 'the refused HEAD after an answered GET: no body');
  const malformed = parseResponse(await exchange(port, `HEAD ${info} HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`));
  t.equal(malformed.status, 400);
  t.equal(malformed.body, '', 'a malformed HEAD: no body');
});

t.test('Check Gateway is answered while every slot is taken; a pay is refused; the slot comes back', async (t) => {
  const app = await build(t, { maxInFlight: 1 });
  let letGo: () => void = () => {};
  const held = new Promise<void>((resolve) => { letGo = resolve; });
  app.get('/test/hold', async () => { await held; return { held: true }; });
  const token = await createToken(app as never);
  const holding = app.inject({ method: 'GET', url: '/test/hold' });
  t.ok(await eventually(() => app.inFlight() === 1), 'a request holds the only slot');
  const pay = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(pay.statusCode, 503);
  t.equal(pay.json().error.cause, 'SERVER_BUSY');
  const info = await app.inject({ method: 'GET', url: '/api/rest/version/100/information' });
  t.equal(info.statusCode, 200, 'Check Gateway takes no slot');
  t.equal(info.json().status, 'OPERATING');
  letGo();
  t.equal((await holding).statusCode, 200);
  t.equal(app.inFlight(), 0, 'the slot is free again');
  const again = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(again.statusCode, 201);
});
