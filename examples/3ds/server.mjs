// A merchant's server for card payments with 3-D Secure, written as for the real Mastercard
// Gateway's Authentication API: the page (page.html) sends the card and the browser's details;
// this server runs Initiate Authentication and Authenticate Payer, the page shows the ACS's
// challenge if there is one, the payer's browser comes back to this server's redirectResponseUrl
// (/3ds/return), which reads the authentication (Retrieve Transaction, never the browser's word)
// and pays naming it (PAY with authentication.transactionId). /order/{id} is the shop's
// confirmation page, from Retrieve Order. Against the real gateway only GATEWAY_URL and the
// credentials change. (A real shop keeps card numbers off its own server with Hosted Session:
// examples/hosted-session runs the same 3-D Secure steps with session.id.)
//
//   GATEWAY_URL=http://127.0.0.1:8080 MERCHANT_ID=TESTMERCHANT01 API_PASSWORD=... node examples/3ds/server.mjs
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const GATEWAY_URL = (process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const MERCHANT_ID = process.env.MERCHANT_ID ?? 'TESTMERCHANT01';
const API_PASSWORD = process.env.API_PASSWORD ?? 'demo-api-password-0123456789abcdef';
const API_VERSION = process.env.API_VERSION ?? '100';
const AMOUNT = process.env.AMOUNT ?? '49.00';
const CURRENCY = process.env.CURRENCY ?? 'EUR';
const PAGE = readFileSync(new URL('./page.html', import.meta.url), 'utf8');
const ORDER_PAGE = readFileSync(new URL('./order.html', import.meta.url), 'utf8');
/** The authentication's transaction id on each order (the PAY is another transaction of it). */
const AUTHENTICATION = '3ds-1';

const api = `${GATEWAY_URL}/api/rest/version/${API_VERSION}/merchant/${MERCHANT_ID}`;
const authorization = `Basic ${Buffer.from(`merchant.${MERCHANT_ID}:${API_PASSWORD}`).toString('base64')}`;
/** Checkouts under way: the card, held until the payment is made or refused. */
const checkouts = new Map();

async function gateway(method, path, body) {
  const response = await fetch(api + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const escape = (text) => String(text ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fill = (template, values) => template.replace(/\{\{([A-Z_]+)\}\}/g, (_, name) => escape(values[name]));
const sourceOfFunds = (card) => ({ type: 'CARD', provided: { card } });
const refused = (answer) => answer.body.error?.explanation ?? `the gateway answered ${answer.status}`;

/** Step 1: is 3-D Secure available for this card? The answer's HTML runs the ACS's method call. */
async function initiate({ number, month, year, securityCode, nameOnCard }) {
  const orderId = randomUUID();
  const card = { number: String(number ?? '').replace(/\D/g, ''), expiry: { month: String(month ?? ''), year: String(year ?? '') }, ...(securityCode ? { securityCode: String(securityCode) } : {}), ...(nameOnCard ? { nameOnCard: String(nameOnCard) } : {}) };
  const answer = await gateway('PUT', `/order/${orderId}/transaction/${AUTHENTICATION}`, {
    apiOperation: 'INITIATE_AUTHENTICATION', authentication: { channel: 'PAYER_BROWSER', purpose: 'PAYMENT_TRANSACTION' },
    order: { currency: CURRENCY }, sourceOfFunds: sourceOfFunds(card),
  });
  if (answer.status !== 200 && answer.status !== 201) return { status: 400, body: { error: refused(answer) } };
  checkouts.set(orderId, { card });
  // A card without 3-D Secure is paid without an authentication.
  if (answer.body.authentication?.version === 'NONE') return { status: 200, body: { next: await pay(orderId, false) } };
  return { status: 200, body: { orderId, methodHtml: answer.body.authentication?.redirect?.html ?? '' } };
}

/** Step 2: authenticate the payer. A challenge answers PENDING, with the HTML that opens the ACS's page. */
async function authenticate({ orderId, browser }, origin) {
  if (!checkouts.has(orderId)) return { status: 400, body: { error: 'unknown order' } };
  const details = browser ?? {};
  const answer = await gateway('PUT', `/order/${orderId}/transaction/${AUTHENTICATION}`, {
    apiOperation: 'AUTHENTICATE_PAYER', authentication: { redirectResponseUrl: `${origin}/3ds/return` },
    order: { amount: AMOUNT, currency: CURRENCY },
    device: {
      browser: String(details.userAgent ?? 'unknown').slice(0, 255),
      browserDetails: {
        '3DSecureChallengeWindowSize': 'FULL_SCREEN', acceptHeaders: 'text/html', colorDepth: Number(details.colorDepth) || 24, javaEnabled: false,
        language: String(details.language ?? 'en-US').slice(0, 8), screenHeight: Number(details.screenHeight) || 800, screenWidth: Number(details.screenWidth) || 1200,
        timeZone: Number(details.timeZone) || 0,
      },
    },
  });
  const html = answer.body.authentication?.redirect?.html;
  // No HTML (the authentication could not run): the shop shows the order as not paid.
  if (!html) return { status: 200, body: { next: await pay(orderId, false, refused(answer)) } };
  return { status: 200, body: { html, challenge: answer.body.result === 'PENDING' } };
}

/**
 * Step 3: the PAY naming the authentication (or, for a card without 3-D Secure, none); nothing is
 * paid after an authentication the gateway does not recommend proceeding with.
 */
async function pay(orderId, authenticated, problem) {
  const checkout = checkouts.get(orderId);
  checkouts.delete(orderId);
  if (checkout && !problem) {
    const answer = await gateway('PUT', `/order/${orderId}/transaction/pay-1`, {
      apiOperation: 'PAY', order: { amount: AMOUNT, currency: CURRENCY }, sourceOfFunds: sourceOfFunds(checkout.card),
      ...(authenticated ? { authentication: { transactionId: AUTHENTICATION } } : {}),
    });
    if (answer.status !== 200 && answer.status !== 201) console.error(`PAY ${orderId}: ${refused(answer)}`);
  }
  return `/order/${encodeURIComponent(orderId)}`;
}

/** The browser's way back from the ACS (posted in the challenge's frame): read the result, pay, show the order. */
async function returned(form) {
  const orderId = form.get('order.id') ?? '';
  if (!checkouts.has(orderId)) return { status: 400, page: '<p>This checkout is over or unknown.</p>' };
  const authentication = await gateway('GET', `/order/${encodeURIComponent(orderId)}/transaction/${AUTHENTICATION}`);
  const proceed = authentication.body.response?.gatewayRecommendation === 'PROCEED';
  const next = await pay(orderId, true, proceed ? undefined : 'not authenticated');
  // The page is in the challenge's frame: the whole window goes to the confirmation.
  return { status: 200, page: `<!doctype html><title>Returning to the shop</title><script>window.top.location.replace(${JSON.stringify(next)});</script>` };
}

/** What the confirmation page says, from the order as the gateway holds it. */
function outcome(order) {
  const payment = [...(order.transaction ?? [])].reverse().find((t) => t.transaction?.type === 'PAYMENT');
  const card = (payment ?? order.transaction?.[0])?.sourceOfFunds?.provided?.card;
  const verified = order.authenticationStatus === 'AUTHENTICATION_SUCCESSFUL';
  const common = {
    ORDER: order.id, AMOUNT: `${AMOUNT} ${CURRENCY}`, CARD: card ? `${card.brand} ${card.number}` : '',
    VERIFIED: verified ? 'Confirmed by your bank (3-D Secure)' : 'Not confirmed by your bank', KIND: 'failed', LINK: 'Try again',
  };
  if (order.status === 'CAPTURED') {
    return { ...common, KIND: 'approved', LINK: 'Continue shopping', TITLE: 'Thank you, your order is confirmed', TEXT: `We have received your payment of ${AMOUNT} ${CURRENCY}.` };
  }
  if (!payment && order.authenticationStatus !== 'AUTHENTICATION_NOT_SUPPORTED') {
    return { ...common, TITLE: 'Your bank did not confirm this payment', TEXT: 'You have not been charged. Try again, or use another card.' };
  }
  const code = payment?.response?.gatewayCode ?? 'no answer';
  return { ...common, TITLE: 'Your payment was declined', TEXT: `Your card was not charged (${code}). Try again, or use another card.` };
}

async function orderPage(orderId) {
  const answer = await gateway('GET', `/order/${encodeURIComponent(orderId)}`);
  if (answer.status !== 200) return { status: 404, page: '<p>No such order.</p>' };
  return { status: 200, page: fill(ORDER_PAGE, outcome(answer.body)) };
}

async function body(request) {
  let text = '';
  for await (const chunk of request) text += chunk;
  return text;
}

async function handle(request, response) {
  const send = (status, type, content) => response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(content);
  const html = (answer) => send(answer.status, 'text/html; charset=utf-8', answer.page);
  const json = (answer) => send(answer.status, 'application/json', JSON.stringify(answer.body));
  const url = new URL(request.url, 'http://shop');
  if (request.method === 'GET' && url.pathname === '/') return html({ status: 200, page: fill(PAGE, { AMOUNT, CURRENCY }) });
  if (request.method === 'POST' && url.pathname === '/checkout/initiate') return json(await initiate(JSON.parse(await body(request) || '{}')));
  if (request.method === 'POST' && url.pathname === '/checkout/authenticate') {
    return json(await authenticate(JSON.parse(await body(request) || '{}'), `http://${request.headers.host}`));
  }
  if (request.method === 'POST' && url.pathname === '/3ds/return') return html(await returned(new URLSearchParams(await body(request))));
  if (request.method === 'GET' && url.pathname.startsWith('/order/')) return html(await orderPage(decodeURIComponent(url.pathname.slice(7))));
  if (url.pathname === '/favicon.ico') return send(204, 'text/plain', '');
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
