// A failing checkout, driven over HTTP as a merchant's shop would drive it: the browser tests of
// the timeline and history pages (test/e2e/) and scripts/screenshots.ts both run it against a
// server. Correlation id checkout-42 on the order of the order API:
//   a card stored (01/39), AUTHORIZE 80.00 USD (approved), CAPTURE 50.00, a REFUND of 60.00
//   (refused: more than captured), a REFUND of 20.00;
//   a second card (05/39) and a version 3 PAY of 12.50 (DECLINED by the test acquirer's table);
//   a third card (05/37) and a PAY of 12.50 (UNKNOWN, resolved later by the gateway);
//   a PAY in currency FUF (refused), and a request with a wrong password (401).

export interface Merchant { id: string; apiPassword: string }

export interface Checkout {
  token: string;
  declinedToken: string;
  unknownToken: string;
  /** The order API's order (AUTHORIZE, CAPTURE, the refused REFUND, a REFUND). */
  orderId: string;
  /** The version 3 payment DECLINED. */
  declinedOrderId: string;
  /** The version 3 payment UNKNOWN. */
  unknownOrderId: string;
  /** The refused refund's answer (400). */
  refusedRefund: { status: number; body: Record<string, unknown>; requestId: string };
  correlationId: string;
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

interface Answer { status: number; body: Record<string, any>; requestId: string }

async function send(url: string, method: string, path: string, authorization: string, body: unknown, correlationId?: string): Promise<Answer> {
  const res = await fetch(url + path, {
    method, body: JSON.stringify(body),
    headers: { authorization, 'content-type': 'application/json', ...(correlationId ? { 'x-correlation-id': correlationId } : {}) },
  });
  return { status: res.status, body: await res.json() as Record<string, any>, requestId: res.headers.get('x-request-id') ?? '' };
}

async function expect(answer: Promise<Answer>, status: number, what: string): Promise<Answer> {
  const got = await answer;
  if (got.status !== status) throw new Error(`${what}: expected ${status}, got ${got.status} ${JSON.stringify(got.body)}`);
  return got;
}

const card = (number: string, month: string, year: string) => ({
  sourceOfFunds: { type: 'CARD', provided: { card: { number, expiry: { month, year } } } },
});

export async function failingCheckout(url: string, merchant: Merchant): Promise<Checkout> {
  const correlationId = 'checkout-42';
  const tokenAuth = basic(`merchant.${merchant.id}`, merchant.apiPassword);
  const payAuth = basic('', merchant.apiPassword);
  const tokens = `/api/rest/version/100/merchant/${merchant.id}/token`;
  const newToken = async (number: string, month: string, year: string, correlation?: string) =>
    (await expect(send(url, 'POST', tokens, tokenAuth, card(number, month, year), correlation), 201, `a token of ${month}/${year}`)).body.token as string;

  const token = await newToken('5123450000000008', '1', '39', correlationId);
  const orderId = '20000000001';
  const order = `/api/rest/version/100/merchant/${merchant.id}/order/${orderId}/transaction`;
  await expect(send(url, 'PUT', `${order}/auth-1`, tokenAuth, { apiOperation: 'AUTHORIZE', order: { amount: '80.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } }, correlationId), 201, 'AUTHORIZE');
  await expect(send(url, 'PUT', `${order}/cap-1`, tokenAuth, { apiOperation: 'CAPTURE', transaction: { amount: '50.00', currency: 'USD' } }, correlationId), 201, 'CAPTURE');
  const refused = await expect(send(url, 'PUT', `${order}/ref-1`, tokenAuth, { apiOperation: 'REFUND', transaction: { amount: '60.00', currency: 'USD' } }, correlationId), 400, 'the REFUND over the captured amount');
  await expect(send(url, 'PUT', `${order}/ref-2`, tokenAuth, { apiOperation: 'REFUND', transaction: { amount: '20.00', currency: 'USD' } }, correlationId), 201, 'REFUND');

  const pay = (t: string, orderId: string, body: unknown) => send(url, 'PUT', `/api/rest/version/3/merchant/${merchant.id}/token/${t}/order/${orderId}/transaction/1`, payAuth, body);
  const declinedToken = await newToken('5123450000000008', '5', '39');
  await expect(pay(declinedToken, '10000000001', { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } }), 201, 'the declined PAY');
  const unknownToken = await newToken('2223000000000007', '5', '37');
  await expect(pay(unknownToken, '10000000002', { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } }), 201, 'the UNKNOWN PAY');
  await expect(pay(declinedToken, '10000000009', { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'FUF' } }), 400, 'a PAY in FUF');
  await expect(send(url, 'GET', `${tokens}/${token}`, basic(`merchant.${merchant.id}`, 'not-the-password-0123456789'), undefined), 401, 'a wrong password');
  return {
    token, declinedToken, unknownToken, orderId, declinedOrderId: '10000000001', unknownOrderId: '10000000002',
    refusedRefund: refused, correlationId,
  };
}
