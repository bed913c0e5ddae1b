// Every answered request writes one log line (plugins/observe.ts) with its merchant, correlation
// id, status and duration, accepted or refused; nothing secret in it (no Authorization header, no
// password, card numbers masked). In a terminal the lines are pino-pretty's (lib/terminal-logs.ts),
// elsewhere JSON.
import { Writable } from 'node:stream';
import pino from 'pino';
import t, { type Test } from 'tap';
import { buildApp, loggerOptions } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { requestMessage, terminalLogStream } from '../../lib/terminal-logs.js';
import { basic, cardBody, createToken, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';

const PAY = { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' }, card: { securityCode: '100' } };

async function appWithLog(t: Test, level = 'info') {
  let text = '';
  const stream = new Writable({ write(chunk, _encoding, done) { text += String(chunk); done(); } });
  const app = await buildApp({ eventStore: { kind: 'memory' }, merchants: parseMerchants(MERCHANTS, 'test'), logger: { ...loggerOptions(level), stream }, limits: { authFailureLimit: 1_000_000 } });
  t.teardown(() => app.close());
  const lines = () => text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return { app, text: () => text, requests: () => lines().filter((line) => line.msg === 'request') };
}

t.test('one line per request, accepted or refused, with merchant, correlation id, status and duration', async (t) => {
  const { app, text, requests } = await appWithLog(t);
  const token = await createToken(app, M1);
  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1), 'x-correlation-id': 'checkout-42' }, payload: PAY });
  t.equal(paid.statusCode, 201);
  const refused = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000002', '1'), headers: { authorization: payAuth(M1), 'x-correlation-id': 'checkout-43' }, payload: { ...PAY, transaction: { amount: '-1', currency: 'USD' } } });
  t.equal(refused.statusCode, 400);
  const wrong = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: basic(`merchant.${M1.id}`, 'a-wrong-password-0123456789abcdef') }, payload: cardBody('4508750015741019') });
  t.equal(wrong.statusCode, 401);
  const unknown = await app.inject({ method: 'GET', url: '/api/rest/version/100/merchant/TESTMERCHANT01/tokens/4508750015741019?number=4508750015741019', headers: { authorization: tokenAuth(M1) } });
  t.equal(unknown.statusCode, 404);

  const lines = requests();
  t.equal(lines.length, 5, 'one line for each of the five requests');
  const [create, pay, bad, unauthorised, notFound] = lines;
  t.match(create, { merchant: M1.id, operation: 'Create or Update Token (system-generated token)', method: 'POST', path: tokenPath(M1.id), status: 201, level: 30 });
  t.match(pay, { merchant: M1.id, correlationId: 'checkout-42', operation: 'Pay with token', method: 'PUT', path: payPath(M1.id, token, '10000000001', '1'), status: 201, reqId: paid.headers['x-request-id'] });
  t.match(bad, { merchant: M1.id, correlationId: 'checkout-43', status: 400, reqId: refused.headers['x-request-id'] });
  t.match(unauthorised, { merchant: M1.id, status: 401, reqId: wrong.headers['x-request-id'] }, 'a refused login names the merchant it claimed');
  t.match(notFound, { merchant: M1.id, operation: 'unknown path', status: 404, path: '/api/rest/version/100/merchant/TESTMERCHANT01/tokens/450875xxxxxx1019' }, 'a path with a card number: masked, no query string');
  for (const line of lines) {
    t.ok(typeof line.durationMs === 'number' && line.durationMs >= 0, `${String(line.status)}: a duration in ms`);
    t.ok(typeof line.correlationId === 'string' && line.correlationId !== '', `${String(line.status)}: a correlation id (the request id without the header)`);
  }
  t.equal(create?.correlationId, create?.reqId, 'without X-Correlation-Id: the request id');
  const all = text();
  t.notMatch(all, /incoming request|request completed/, "Fastify's own two lines per request are off");
  for (const secret of ['authorization', M1.apiPassword, 'a-wrong-password', '5123450000000008', '4508750015741019', '"securityCode":"100"']) {
    t.notOk(all.includes(secret), `the log does not hold ${secret.slice(0, 12)}…`);
  }
});

t.test('above info, no line is written', async (t) => {
  const { app, text } = await appWithLog(t, 'warn');
  await createToken(app, M1);
  t.equal(text(), '', 'nothing at warn for a request that went well');
});

t.test('in a terminal the lines are for a person, elsewhere JSON', async (t) => {
  t.equal(await terminalLogStream({ isTTY: false } as NodeJS.WriteStream), undefined, 'not a terminal: no stream of its own (JSON lines on stdout)');
  let out = '';
  const terminal = Object.assign(new Writable({ write(chunk, _encoding, done) { out += String(chunk); done(); } }), { isTTY: true });
  const stream = await terminalLogStream(terminal as unknown as NodeJS.WriteStream);
  t.ok(stream, 'a terminal: pino-pretty');
  const logger = pino(loggerOptions('info'), stream);
  logger.info({ reqId: 'r-1', merchant: M1.id, correlationId: 'checkout-42', operation: 'Pay with token', method: 'PUT', path: '/api/rest/version/3/merchant/TESTMERCHANT01/token/9/order/1/transaction/1', status: 201, durationMs: 3.25 }, 'request');
  logger.info({ card: { number: '5123450000000008' } }, 'tokengate ready');
  await new Promise((resolve) => setImmediate(resolve));
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  t.match(plain, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: PUT \/api\/rest\/version\/3\/merchant\/TESTMERCHANT01\/token\/9\/order\/1\/transaction\/1 → 201 3\.25 ms {2}merchant TESTMERCHANT01 {2}correlation checkout-42 \{"reqId":"r-1"\}$/m, 'a request: one line, method, path, status, duration, merchant, correlation id');
  t.match(plain, /INFO: tokengate ready \{"card":\{"number":"\[redacted\]"\}\}/, 'another line: its message, its fields redacted as in JSON');
  t.notOk(plain.includes('{"level"'), 'no JSON line');
  t.equal(requestMessage({ msg: 'closing' }, 'msg'), 'closing', 'a line without request fields keeps its message');
});
