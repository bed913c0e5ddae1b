// A card number as an id in a URL's path (an order id, a transaction id, a token id, a session
// id, an id of the admin API) named a stream and was recorded in events as sent, or was looked up
// and answered as unknown. It is refused as a card number in a body's free text is: 400 naming the
// parameter as the operation names it (`orderid` in version 3, `orderId` later, `order.id` in NVP),
// the number not echoed, nothing recorded. Reads too: a GET with such an id is the same 400. The
// operations and their parameters are listed from the OpenAPI document (request-values.fixture.ts),
// NVP's operations with the fields that are REST's path parameters.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, createToken, M1, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { expectInvalid, storeText } from './http.fixture.js';
import { ADMIN_PASSWORD, authFor, fill, NVP_CREDENTIALS, operations, requestOf, type Operation } from './request-values.fixture.js';

const CARD = 'Value is invalid. The field must not hold a card number (13 to 19 digits passing the Luhn check)';
/** Card numbers as ids: alone, in groups, glued to letters; several brands and lengths (as decoded from the path). */
const FORMS = ['6011000990139424', '6011-0009-9013-9424', '4222222222222', 'INV5123450000000008', '5018000000000000007', '3782 822463 10005', 'o-4012000033330026'];
const digitsOf = (value: string) => value.replace(/\D/g, '');

/** A body the operation would carry out, where it has one: without the refusal, it would be recorded. */
function validBody(op: Operation, token: string): Record<string, unknown> | undefined {
  if (op.method !== 'PUT') return undefined;
  if (op.path.includes('/version/3/')) return { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } };
  if (op.path.endsWith('/transaction/{transactionId}')) return { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { token } };
  if (op.path.endsWith('/session/{sessionId}')) return { order: { amount: '1.00', currency: 'USD' } };
  return undefined;
}

/** The request with `value` in the path parameter `param` (REST), or in the NVP field `param`. */
function requestWith(op: Operation, token: string, param: string, value: string) {
  if (op.nvp) {
    const request = requestOf(op, fill(op.path), param, value);
    const fields = Object.fromEntries(new URLSearchParams(String(request.payload)));
    // PAY's fields, so that only the id stands between the request and a payment.
    const pay: Record<string, string> = op.nvp.apiOperation === 'PAY' ? { 'order.amount': '1.00', 'order.currency': 'USD', 'sourceOfFunds.token': token } : {};
    return { ...request, payload: new URLSearchParams({ ...pay, ...fields }).toString() };
  }
  const url = fill(op.path, { tokenid: token, [param]: encodeURIComponent(value) });
  const body = validBody(op, token);
  return body === undefined ? requestOf(op, url) : { method: op.method as 'PUT', url, headers: { authorization: authFor(op.path) }, payload: body };
}

t.test('a card number in any path parameter of any operation (and NVP\'s id fields): 400 naming it, not echoed, nothing recorded', async (t) => {
  const dir = t.testdir();
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') }, adminPassword: ADMIN_PASSWORD, testControl: true });
  const token = await createToken(app);
  const before = await app.gateway.store.headPosition();
  const sent: string[] = [];
  const refused = new Set<string>();
  for (const op of await operations(app)) {
    const params = op.nvp ? op.nvp.idFields : op.pathParams;
    for (const param of params) {
      const value = FORMS[sent.length % FORMS.length] as string;
      sent.push(value);
      const name = `${op.method} ${op.path}${op.nvp ? ` ${op.nvp.apiOperation}` : ''}: '${value}' in ${param}`;
      const res = await app.inject(requestWith(op, token, param, value));
      if (/^merchantid$/i.test(param) && op.path.startsWith('/api/') && /^[0-9A-Za-z_-]+$/.test(value)) {
        // The gateway's API authenticates the merchant of the path first: no such merchant.
        t.equal(res.statusCode, 401, `${name}: ${res.statusCode} (authentication answers first)`);
      } else if (/^merchantid$/i.test(param) && op.path.startsWith('/api/')) {
        // Characters no merchant id has (the spaces of '3782 822463 10005'): refused as no merchant id, before a password is checked.
        expectInvalid(t, res, { field: param, explanation: /Expected characters 0-9 a-z A-Z/ }, name);
      } else {
        expectInvalid(t, res, { field: param, explanation: CARD }, name);
        refused.add(`${op.method} ${op.path}${op.nvp ? ` ${op.nvp.apiOperation}` : ''} ${param}`);
      }
      t.notOk(res.body.includes(value) || res.body.includes(digitsOf(value).slice(6, -4)), `${name}: the number is not echoed`);
    }
  }
  const all = [...refused].join('\n');
  for (const expected of [
    /^PUT \/api\/rest\/version\/3\/.*transactionid\} orderid$/m, /^GET \/api\/rest\/version\/\{version\}\/merchant\/\{merchantId\}\/order\/\{orderId\} orderId$/m,
    /^PUT .*\/token\/\{tokenid\} tokenid$/m, /^DELETE .*\/token\/\{tokenid\} tokenid$/m, /^GET .*\/session\/\{sessionId\} sessionId$/m,
    /^POST .*\/resolve transactionId$/m, /^POST .*\/redeliver notificationId$/m, /^GET \/admin\/api\/orders\/.* orderId$/m,
    /^POST \/api\/nvp\/version\/\{version\} PAY order\.id$/m, /^POST \/api\/nvp\/version\/\{version\} RETRIEVE_TOKEN token$/m,
  ]) t.match(all, expected, `among the ${refused.size} refused: ${String(expected)}`);
  t.equal(await app.gateway.store.headPosition(), before, 'nothing recorded');
  const timeline = (await app.inject({ method: 'GET', url: '/admin/api/events?limit=500', headers: { authorization: authFor('/admin') } })).body;
  const files = readdirSync(dir).map((file) => readFileSync(join(dir, file)).toString('latin1')).join('\n');
  for (const [where, text] of [['the events', await storeText(app)], ['the timeline', timeline], ['the store files', files]] as const) {
    for (const value of new Set(sent)) t.notOk(text.includes(value) || text.includes(digitsOf(value)), `${where}: not '${value}'`);
  }
});

t.test('ids that are no card numbers are still taken: a gateway token id, a UUID, digits failing Luhn', async (t) => {
  const app = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD, testControl: true });
  const token = await createToken(app);
  t.match(token, /^9[0-9]{15}$/, 'a generated token id: 16 digits beginning with 9');
  const retrieved = await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/token/${token}`, headers: { authorization: tokenAuth(M1) } });
  t.equal(retrieved.statusCode, 200, `the token is retrieved: ${retrieved.body.slice(0, 200)}`);
  // 16 digits failing Luhn, as an order id of version 3 and of the order API.
  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '6011000990139425', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(paid.statusCode, 201, `order 6011000990139425: ${paid.body.slice(0, 200)}`);
  const order = await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/6011000990139425`, headers: { authorization: tokenAuth(M1) } });
  t.equal(order.statusCode, 200, 'and read back');
  // A notification id is a UUID; the digits of this one's last groups pass Luhn (7706-8218-571102).
  const redeliver = await app.inject({
    method: 'POST', url: `/admin/api/test-control/merchants/${M1.id}/notifications/01a223c2-2e1c-7706-8218-571102a61d2f/redeliver`, headers: { authorization: authFor('/admin') },
  });
  expectInvalid(t, redeliver, { status: 404, field: 'notificationId', explanation: /^No notification '01a223c2-/ }, 'a UUID: looked up, not refused');
});

t.test('a payment with a card number as its order or transaction id is refused in every form, and GET of one is the same 400', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const before = await app.gateway.store.headPosition();
  const orderApi = (order: string, transaction: string) => `/api/rest/version/100/merchant/${M1.id}/order/${encodeURIComponent(order)}/transaction/${encodeURIComponent(transaction)}`;
  const v100 = { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { token } };
  const v3 = { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } };
  const cases: Array<[string, 'PUT' | 'GET', string, string, Record<string, unknown> | undefined, string]> = [
    ['version 3 PAY, order id', 'PUT', payPath(M1.id, token, '6011000990139424', '1'), payAuth(M1), v3, 'orderid'],
    ['version 3 PAY, transaction id', 'PUT', payPath(M1.id, token, '10000000001', '6011-0009-9013-9424'), payAuth(M1), v3, 'transactionid'],
    ['PAY, order id in groups', 'PUT', orderApi('6011-0009-9013-9424', '1'), tokenAuth(M1), v100, 'orderId'],
    ['PAY, transaction id in text', 'PUT', orderApi('o-1', 'INV6011000990139424'), tokenAuth(M1), v100, 'transactionId'],
    ['Retrieve Order', 'GET', `/api/rest/version/100/merchant/${M1.id}/order/6011000990139424`, tokenAuth(M1), undefined, 'orderId'],
    ['Retrieve Transaction', 'GET', orderApi('o-1', '6011 0009 9013 9424'), tokenAuth(M1), undefined, 'transactionId'],
    ['version 3 Retrieve Order', 'GET', `/api/rest/version/3/merchant/${M1.id}/order/6011000990139424`, payAuth(M1), undefined, 'orderid'],
  ];
  for (const [what, method, url, authorization, payload, field] of cases) {
    const res = await app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) });
    expectInvalid(t, res, { field, explanation: CARD }, what);
    t.notMatch(res.body, /0009.?9013/, `${what}: not echoed`);
  }
  const nvp = await app.inject({
    method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...NVP_CREDENTIALS, apiOperation: 'PAY', 'order.id': 'x6011-0009-9013-9424', 'transaction.id': '1', 'order.amount': '1.00', 'order.currency': 'USD', 'sourceOfFunds.token': token }).toString(),
  });
  expectInvalid(t, nvp, { field: 'order.id', explanation: CARD }, 'NVP PAY, order.id');
  t.equal(await app.gateway.store.headPosition(), before, 'nothing recorded');
  t.notMatch(await storeText(app), /6011.?0009.?9013.?9424/, 'not in the events');
});
