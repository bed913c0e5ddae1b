// Overload and limits: 503 SERVER_BUSY beyond MAX_IN_FLIGHT, 413 beyond BODY_LIMIT, malformed
// HTTP and slow requests answered in the gateway's shape.
import { connect } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { buildApp } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { cardBody, createToken, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { startServer } from '../helpers/server.js';

const build = async (t: Parameters<Parameters<typeof t.test>[1]>[0], limits: Record<string, number>, onDisk = false) => {
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
    socket.setTimeout(5000, () => { socket.destroy(); resolve(data); });
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
  let busy: Awaited<ReturnType<typeof app.inject>> | undefined;
  for (let i = 0; i < 40 && !busy; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const res = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody() });
    if (res.statusCode === 503) busy = res;
  }
  t.ok(busy, 'a request during the measured delay is refused');
  t.equal(busy?.json().error.cause, 'SERVER_BUSY');
  t.match(busy?.json().error.explanation, 'eventLoopDelay');
});
