// A merchant's server for a Hosted Checkout, written as for the real Mastercard Gateway: for each
// visit it creates a checkout (INITIATE_CHECKOUT: the order, the page's interaction, the returnUrl),
// keeps the successIndicator, and serves its page (page.html), which loads checkout.min.js from
// the gateway and sends the payer to the gateway's payment page (or embeds it). The payer comes
// back to /return with resultIndicator: equal to the successIndicator, the payment succeeded, and
// the server reads the order (Retrieve Order) to show the receipt. It never sees the card.
// Against the real gateway, only GATEWAY_URL (and the credentials) change.
//
//   GATEWAY_URL=http://127.0.0.1:8080 MERCHANT_ID=TESTMERCHANT01 API_PASSWORD=... node examples/hosted-checkout/server.mjs
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const GATEWAY_URL = (process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const MERCHANT_ID = process.env.MERCHANT_ID ?? 'TESTMERCHANT01';
const API_PASSWORD = process.env.API_PASSWORD ?? 'demo-api-password-0123456789abcdef';
const API_VERSION = process.env.API_VERSION ?? '100';
const AMOUNT = process.env.AMOUNT ?? '25.00';
const CURRENCY = process.env.CURRENCY ?? 'USD';
/** Seconds the payer has on the payment page (interaction.timeout); the gateway's default when unset. */
const TIMEOUT = process.env.CHECKOUT_TIMEOUT;
const PAGE = readFileSync(new URL('./page.html', import.meta.url), 'utf8');
const RESULT = readFileSync(new URL('./result.html', import.meta.url), 'utf8');

const api = `${GATEWAY_URL}/api/rest/version/${API_VERSION}/merchant/${MERCHANT_ID}`;
const authorization = `Basic ${Buffer.from(`merchant.${MERCHANT_ID}:${API_PASSWORD}`).toString('base64')}`;
/** The checkouts this server started, by order id: the session and the successIndicator to compare with. */
const checkouts = new Map();

async function gateway(method, path, body) {
  const response = await fetch(api + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** Initiate Checkout for a new order; the payer comes back to this server's /return. */
async function newCheckout(shopUrl) {
  const orderId = randomUUID();
  const interaction = {
    operation: 'PURCHASE',
    merchant: { name: 'Demo Shop' },
    returnUrl: `${shopUrl}/return?order=${orderId}`,
    ...(TIMEOUT ? { timeout: Number(TIMEOUT) } : {}),
  };
  const created = await gateway('POST', '/session', {
    apiOperation: 'INITIATE_CHECKOUT', interaction, order: { id: orderId, amount: AMOUNT, currency: CURRENCY, description: 'Ordered goods' },
  });
  if (created.status !== 201 && created.status !== 200) throw new Error(`Initiate Checkout: ${JSON.stringify(created.body)}`);
  checkouts.set(orderId, { sessionId: created.body.session.id, successIndicator: created.body.successIndicator });
  return { orderId, sessionId: created.body.session.id };
}

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fill = (template, values) => template.replace(/\{\{([A-Z_]+)\}\}/g, (_, name) => escape(values[name] ?? ''));

/** Back from the payment page: the result indicator compared, then the order as the gateway has it. */
async function result(orderId, resultIndicator) {
  const checkout = checkouts.get(orderId);
  if (!checkout) return { title: 'Unknown order', text: 'This shop did not start that checkout.', tone: 'failed' };
  if (resultIndicator !== checkout.successIndicator) {
    return { title: 'Payment not completed', text: 'The result indicator does not match: the payment did not succeed.', tone: 'failed', orderId };
  }
  const order = await gateway('GET', `/order/${encodeURIComponent(orderId)}`);
  const paid = order.body.result === 'SUCCESS' && order.body.status === 'CAPTURED';
  const card = order.body.sourceOfFunds?.provided?.card;
  return {
    title: paid ? 'Thank you for your order' : 'Payment not completed',
    text: paid ? `Paid ${order.body.totalCapturedAmount} ${order.body.currency} with ${card?.brand} ${card?.number}.` : `The order's status is ${order.body.status}.`,
    tone: paid ? 'approved' : 'failed', orderId, status: order.body.status,
  };
}

async function handle(request, response) {
  const send = (status, type, body) => response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  const url = new URL(request.url, `http://${request.headers.host}`);
  if (request.method === 'GET' && url.pathname === '/') {
    const { orderId, sessionId } = await newCheckout(url.origin);
    return send(200, 'text/html; charset=utf-8', fill(PAGE, { GATEWAY: GATEWAY_URL, SESSION: sessionId, ORDER: orderId, AMOUNT, CURRENCY }));
  }
  if (request.method === 'GET' && url.pathname === '/return') {
    const shown = await result(url.searchParams.get('order') ?? '', url.searchParams.get('resultIndicator'));
    console.log(`return: order ${shown.orderId ?? '-'} ${shown.tone} ${shown.status ?? ''}`);
    return send(200, 'text/html; charset=utf-8', fill(RESULT, { TITLE: shown.title, TEXT: shown.text, TONE: shown.tone, ORDER: shown.orderId ?? '' }));
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
