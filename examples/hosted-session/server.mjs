// A merchant's server for a Hosted Session checkout, written as for the real Mastercard Gateway:
// it creates a session (Create Session, then Update Session with the order's amount), serves the
// payment page (page.html) with the session id, and once the page's hosted fields have put the
// card in the session, pays with session.id (PAY). It never sees the card: only the gateway's
// frames in the page do. Against the real gateway, only GATEWAY_URL (and the credentials) change.
//
//   GATEWAY_URL=http://127.0.0.1:8080 MERCHANT_ID=TESTMERCHANT01 API_PASSWORD=... node examples/hosted-session/server.mjs
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const GATEWAY_URL = (process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const MERCHANT_ID = process.env.MERCHANT_ID ?? 'TESTMERCHANT01';
const API_PASSWORD = process.env.API_PASSWORD ?? 'demo-api-password-0123456789abcdef';
const API_VERSION = process.env.API_VERSION ?? '100';
const AMOUNT = process.env.AMOUNT ?? '25.00';
const CURRENCY = process.env.CURRENCY ?? 'USD';
const PAGE = readFileSync(new URL('./page.html', import.meta.url), 'utf8');

const api = `${GATEWAY_URL}/api/rest/version/${API_VERSION}/merchant/${MERCHANT_ID}`;
const authorization = `Basic ${Buffer.from(`merchant.${MERCHANT_ID}:${API_PASSWORD}`).toString('base64')}`;
/** The sessions this server created, and the order each is for. */
const sessions = new Map();

async function gateway(method, path, body) {
  const response = await fetch(api + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

async function newCheckout() {
  const created = await gateway('POST', '/session', { session: { authenticationLimit: 25 } });
  if (created.status !== 201) throw new Error(`Create Session: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.session.id;
  const updated = await gateway('PUT', `/session/${sessionId}`, { order: { amount: AMOUNT, currency: CURRENCY } });
  if (updated.status !== 200) throw new Error(`Update Session: ${JSON.stringify(updated.body)}`);
  sessions.set(sessionId, { orderId: randomUUID() });
  return sessionId;
}

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(sessionId) {
  const values = { GATEWAY: GATEWAY_URL, VERSION: API_VERSION, MERCHANT: MERCHANT_ID, SESSION: sessionId, AMOUNT, CURRENCY };
  return PAGE.replace(/\{\{([A-Z]+)\}\}/g, (_, name) => escape(values[name]));
}

/** PAY with the session the page filled: the gateway takes the card from it. */
async function pay(sessionId) {
  const checkout = sessions.get(sessionId);
  if (!checkout) return { status: 400, body: { error: 'unknown session' } };
  const paid = await gateway('PUT', `/order/${checkout.orderId}/transaction/1`, {
    apiOperation: 'PAY', order: { amount: AMOUNT, currency: CURRENCY }, session: { id: sessionId },
  });
  const card = paid.body.sourceOfFunds?.provided?.card;
  return {
    status: 200,
    body: { orderId: checkout.orderId, result: paid.body.result, gatewayCode: paid.body.response?.gatewayCode, card: card && `${card.brand} ${card.number}`, error: paid.body.error?.explanation },
  };
}

async function readJson(request) {
  let text = '';
  for await (const chunk of request) text += chunk;
  return JSON.parse(text || '{}');
}

async function handle(request, response) {
  const send = (status, type, body) => response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  if (request.method === 'GET' && request.url === '/') return send(200, 'text/html; charset=utf-8', page(await newCheckout()));
  if (request.method === 'POST' && request.url === '/pay') {
    const { sessionId } = await readJson(request);
    const answer = await pay(String(sessionId));
    return send(answer.status, 'application/json', JSON.stringify(answer.body));
  }
  if (request.url === '/favicon.ico') return send(204, 'text/plain', '');
  return send(404, 'text/plain', 'not found');
}

const server = createServer((request, response) => {
  handle(request, response).catch((error) => {
    console.error(error);
    if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' }).end('the gateway could not be reached');
  });
});
server.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`Merchant shop at http://localhost:${port}/ (gateway ${GATEWAY_URL})`);
});
