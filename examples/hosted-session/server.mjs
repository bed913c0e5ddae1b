// A merchant's server for a Hosted Session checkout with 3-D Secure, written as for the real
// Mastercard Gateway: it creates a session (Create Session, then Update Session with the order's
// amount and what 3-D Secure needs: authentication.channel and the redirectResponseUrl), serves the
// payment page (page.html) with the session id, and once the page's hosted fields have put the
// card in the session, runs 3-D Secure naming session.id (Initiate Authentication, Authenticate
// Payer; the page shows the bank's challenge if there is one), and back at /3ds/return pays with
// session.id and the authentication (PAY). It never sees the card: only the gateway's frames in the
// page do. Against the real gateway, only GATEWAY_URL (and the credentials) change.
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
/** The authentication's transaction id on each order (the PAY is another transaction of it). */
const AUTHENTICATION = '3ds-1';

async function gateway(method, path, body) {
  const response = await fetch(api + path, { method, headers: { authorization, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** A session for one checkout, holding the order's amount and what 3-D Secure needs (the way back to this shop). */
async function newCheckout(origin) {
  const created = await gateway('POST', '/session', { session: { authenticationLimit: 25 } });
  if (created.status !== 201) throw new Error(`Create Session: ${JSON.stringify(created.body)}`);
  const sessionId = created.body.session.id;
  const updated = await gateway('PUT', `/session/${sessionId}`, {
    order: { amount: AMOUNT, currency: CURRENCY },
    authentication: { channel: 'PAYER_BROWSER', purpose: 'PAYMENT_TRANSACTION', redirectResponseUrl: `${origin}/3ds/return` },
  });
  if (updated.status !== 200) throw new Error(`Update Session: ${JSON.stringify(updated.body)}`);
  sessions.set(sessionId, { orderId: randomUUID() });
  return sessionId;
}

const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(sessionId) {
  const values = { GATEWAY: GATEWAY_URL, VERSION: API_VERSION, MERCHANT: MERCHANT_ID, SESSION: sessionId, AMOUNT, CURRENCY };
  return PAGE.replace(/\{\{([A-Z]+)\}\}/g, (_, name) => escape(values[name]));
}

const transaction = (checkout, id) => `/order/${checkout.orderId}/transaction/${id}`;

/** PAY with the session the page filled (the gateway takes the card from it), naming the authentication if there is one. */
async function pay(sessionId, authenticated) {
  const checkout = sessions.get(sessionId);
  const paid = await gateway('PUT', transaction(checkout, 'pay-1'), {
    apiOperation: 'PAY', session: { id: sessionId }, ...(authenticated ? { authentication: { transactionId: AUTHENTICATION } } : {}),
  });
  const card = paid.body.sourceOfFunds?.provided?.card;
  return { orderId: checkout.orderId, result: paid.body.result, gatewayCode: paid.body.response?.gatewayCode, card: card && `${card.brand} ${card.number}`, error: paid.body.error?.explanation };
}

/**
 * The card is in the session: is 3-D Secure available for it (Initiate Authentication)? A card
 * without it is paid at once; otherwise the page runs the method call's HTML and asks /authenticate.
 */
async function initiate(sessionId) {
  const checkout = sessions.get(sessionId);
  if (!checkout) return { status: 400, body: { error: 'unknown session' } };
  // Each attempt is an order of its own (a declined card may be followed by another).
  checkout.orderId = randomUUID();
  const initiated = await gateway('PUT', transaction(checkout, AUTHENTICATION), { apiOperation: 'INITIATE_AUTHENTICATION', session: { id: sessionId } });
  if (initiated.body.result !== 'SUCCESS') return { status: 200, body: { orderId: checkout.orderId, result: 'ERROR', error: initiated.body.error?.explanation } };
  if (initiated.body.authentication?.version === 'NONE') return { status: 200, body: await pay(sessionId, false) };
  return { status: 200, body: { methodHtml: initiated.body.authentication?.redirect?.html ?? '' } };
}

/** Authenticate Payer: the amount and the way back come from the session; the browser's details from the page. */
async function authenticate(sessionId, browser = {}) {
  const checkout = sessions.get(sessionId);
  if (!checkout) return { status: 400, body: { error: 'unknown session' } };
  const answer = await gateway('PUT', transaction(checkout, AUTHENTICATION), {
    apiOperation: 'AUTHENTICATE_PAYER', session: { id: sessionId },
    device: {
      browser: String(browser.userAgent ?? 'unknown').slice(0, 255),
      browserDetails: {
        '3DSecureChallengeWindowSize': 'FULL_SCREEN', acceptHeaders: 'text/html', colorDepth: Number(browser.colorDepth) || 24, javaEnabled: false,
        language: String(browser.language ?? 'en-US').slice(0, 8), screenHeight: Number(browser.screenHeight) || 800,
        screenWidth: Number(browser.screenWidth) || 1200, timeZone: Number(browser.timeZone) || 0,
      },
    },
  });
  const html = answer.body.authentication?.redirect?.html;
  if (!html) return { status: 200, body: { orderId: checkout.orderId, result: 'ERROR', error: answer.body.error?.explanation ?? 'the payment could not be authenticated' } };
  return { status: 200, body: { html, challenge: answer.body.result === 'PENDING' } };
}

/**
 * The payer's browser back from the bank (posted in the challenge's frame): the authentication is
 * read from the gateway (Retrieve Transaction), never taken from the browser; paid only when the
 * gateway recommends going on. The answer tells the page in the frame's parent window.
 */
async function returned(form) {
  const sessionId = [...sessions].find(([, checkout]) => checkout.orderId === form.get('order.id'))?.[0];
  if (!sessionId) return '<p>This checkout is over or unknown.</p>';
  const checkout = sessions.get(sessionId);
  const authentication = (await gateway('GET', transaction(checkout, AUTHENTICATION))).body;
  const answer = authentication.response?.gatewayRecommendation === 'PROCEED'
    ? await pay(sessionId, true)
    : { orderId: checkout.orderId, result: 'NOT_AUTHENTICATED', cancelled: authentication.authentication?.['3ds2']?.challengeCancel !== undefined };
  return `<!doctype html><title>Returning to the shop</title><script>window.top.paymentDone(${JSON.stringify(answer).replace(/</g, '\\u003c')});</script>`;
}

/** The payer gave up before paying: the checkout is forgotten, nothing is sent to the gateway. */
function cancel(sessionId) {
  const checkout = sessions.get(sessionId);
  sessions.delete(sessionId);
  return { status: checkout ? 200 : 400, body: checkout ? { orderId: checkout.orderId, cancelled: true } : { error: 'unknown session' } };
}

async function readJson(request) {
  let text = '';
  for await (const chunk of request) text += chunk;
  return JSON.parse(text || '{}');
}

async function handle(request, response) {
  const send = (status, type, body) => response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  const json = (answer) => send(answer.status, 'application/json', JSON.stringify(answer.body));
  if (request.method === 'GET' && request.url === '/') return send(200, 'text/html; charset=utf-8', page(await newCheckout(`http://${request.headers.host}`)));
  if (request.method === 'POST' && request.url === '/pay') return json(await initiate(String((await readJson(request)).sessionId)));
  if (request.method === 'POST' && request.url === '/authenticate') {
    const { sessionId, browser } = await readJson(request);
    return json(await authenticate(String(sessionId), browser));
  }
  if (request.method === 'POST' && request.url === '/cancel') return json(cancel(String((await readJson(request)).sessionId)));
  if (request.method === 'POST' && request.url === '/3ds/return') {
    let text = '';
    for await (const chunk of request) text += chunk;
    return send(200, 'text/html; charset=utf-8', await returned(new URLSearchParams(text)));
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
