// Hosted Session's server side through inject: session.js and its frames on the real gateway's
// paths with their headers, and the update the controller frame sends (PUT
// /form/version/{n}/merchant/{m}/session/{id}): stored as Update Session stores a card (the same
// event, sealed, masked), answered as the formSessionUpdate callback gets it: ok, fields_in_error
// (nothing stored), request_timeout for a session the gateway does not hold. The browser itself:
// test/e2e/hosted-session.test.ts.
import t from 'tap';
import { buildTestApp, M1, M2, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';

const form = (m = M1.id, v = '100') => `/form/version/${v}/merchant/${m}`;
const rest = `/api/rest/version/100/merchant/${M1.id}`;
const auth = { authorization: tokenAuth(M1) };
const CHANNEL = 'a'.repeat(32);
const PAN = '5123450000000008';

async function newSession(a: Awaited<ReturnType<typeof buildTestApp>>) {
  const created = await a.inject({ method: 'POST', url: `${rest}/session`, headers: auth, payload: {} });
  return created.json().session as { id: string; version: string };
}

t.test('session.js: the library, on any query string, for any page', async (t) => {
  const a = await buildTestApp(t);
  const res = await a.inject({ method: 'GET', url: `${form()}/session.js?debug=true&_=123` });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/javascript/);
  t.equal(res.headers['access-control-allow-origin'], '*');
  t.equal(res.headers['x-content-type-options'], 'nosniff');
  t.match(res.body, 'window.PaymentSession = {');
  t.match(res.body, `})({"version":"100","merchant":"${M1.id}"});`, 'the path\'s version and merchant');
  for (const api of ['configure', 'updateSessionFromForm', 'validate', 'setFocus', 'setFocusStyle', 'setHoverStyle', 'setPlaceholderStyle', 'onFocus', 'onBlur', 'onChange']) {
    t.match(res.body, new RegExp(`\\n  ${api}: `), api);
  }
  const unknown = await a.inject({ method: 'GET', url: `${form('NOSUCHMERCHANT')}/session.js` });
  t.equal(unknown.statusCode, 400);
  t.equal(unknown.json().error.field, 'merchantId');
  const old = await a.inject({ method: 'GET', url: `${form(M1.id, '17')}/session.js` });
  t.equal(old.statusCode, 400, 'sessions start at version 18');
  t.equal(old.json().error.field, 'version');
});

t.test('the frames: embeddable by merchants\' pages, their own code only', async (t) => {
  const a = await buildTestApp(t);
  const field = await a.inject({ method: 'GET', url: `${form()}/role/number/inputField.do?channel=${CHANNEL}` });
  t.equal(field.statusCode, 200);
  t.match(field.headers['content-type'], /^text\/html/);
  const policy = String(field.headers['content-security-policy']);
  t.match(policy, /frame-ancestors http: https:/);
  t.match(policy, /script-src 'sha256-[^']+'/);
  t.match(policy, /connect-src 'none'/, 'a field connects nowhere');
  t.notOk(field.headers['x-frame-options'], 'no X-Frame-Options: merchants\' pages frame it');
  const controller = await a.inject({ method: 'GET', url: `${form()}/controller.do?channel=${CHANNEL}` });
  t.equal(controller.statusCode, 200);
  t.match(String(controller.headers['content-security-policy']), /connect-src 'self'/);
  const role = await a.inject({ method: 'GET', url: `${form()}/role/pin/inputField.do?channel=${CHANNEL}` });
  t.equal(role.statusCode, 400);
  t.equal(role.json().error.field, 'role');
  const channel = await a.inject({ method: 'GET', url: `${form()}/role/number/inputField.do` });
  t.equal(channel.statusCode, 400);
  t.equal(channel.json().error.field, 'channel');
});

t.test('an update from the hosted fields is Update Session: the event, masked, sealed; then PAY with session.id', async (t) => {
  const a = await buildTestApp(t);
  const session = await newSession(a);
  const res = await a.inject({
    method: 'PUT', url: `${form()}/session/${session.id}`, headers: { 'sec-fetch-site': 'same-origin' },
    payload: { paymentType: 'card', card: { number: '5123 4500 0000 0008', expiryMonth: '01', expiryYear: '2039', securityCode: '123', nameOnCard: ' Jo Payer ' } },
  });
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.headers['cache-control'], 'no-store');
  const body = res.json();
  t.equal(body.status, 'ok');
  t.equal(body.merchant, M1.id);
  t.equal(body.version, '100');
  t.equal(body.session.id, session.id);
  t.equal(body.session.updateStatus, 'SUCCESS');
  t.not(body.session.version, session.version, 'a new version');
  t.same(body.sourceOfFunds, {
    provided: { card: { brand: 'MASTERCARD', expiry: { month: '1', year: '39' }, fundingMethod: 'CREDIT', nameOnCard: 'Jo Payer', number: '512345xxxxxx0008', scheme: 'MASTERCARD', securityCode: 'xxx' } },
    type: 'CARD',
  });
  t.notOk('result' in body, 'the callback\'s shape: status, no result');

  const events = await a.gateway.store.readAll();
  const updated = events.filter((e) => e.type === 'SessionUpdated');
  t.equal(updated.length, 1);
  t.equal(updated[0]?.metadata.merchantId, M1.id);
  t.equal(updated[0]?.metadata.path, `${form()}/session/${session.id}`, 'the history shows where the update came from');
  const stored = JSON.stringify(events.map((e) => ({ data: e.data, metadata: e.metadata })));
  t.notMatch(stored, PAN, 'no card number in the events');
  t.notMatch(stored, /"123"/, 'no security code in the events');

  const retrieved = await a.inject({ method: 'GET', url: `${rest}/session/${session.id}`, headers: auth });
  t.equal(retrieved.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  const paid = await a.inject({
    method: 'PUT', url: `${rest}/order/${uniqueId()}/transaction/1`, headers: auth,
    payload: { apiOperation: 'PAY', order: { amount: '10.00', currency: 'USD' }, session: { id: session.id } },
  });
  t.equal(paid.statusCode, 201, paid.body);
  t.equal(paid.json().response.gatewayCode, 'APPROVED');
  t.equal(paid.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
});

t.test('fields in error: each named, missing or invalid, and nothing stored', async (t) => {
  const a = await buildTestApp(t);
  const session = await newSession(a);
  const before = (await a.gateway.store.readAll()).length;
  const cases: Array<[Record<string, string>, Record<string, string>]> = [
    [{ number: '5123450000000009', expiryMonth: '1', expiryYear: '39' }, { cardNumber: 'invalid' }],
    [{ number: '', expiryMonth: '', expiryYear: '39' }, { cardNumber: 'missing', expiryMonth: 'missing' }],
    [{ number: PAN, expiryMonth: '13', expiryYear: '3' }, { expiryMonth: 'invalid', expiryYear: 'invalid' }],
    [{ number: PAN, expiryMonth: '1' }, { expiryYear: 'missing' }],
    [{ number: PAN, securityCode: '12a' }, { securityCode: 'invalid' }],
    [{ number: PAN, nameOnCard: 'x'.repeat(257) }, { nameOnCard: 'invalid' }],
  ];
  for (const [card, errors] of cases) {
    const res = await a.inject({ method: 'PUT', url: `${form()}/session/${session.id}`, payload: { card } });
    t.equal(res.statusCode, 400, JSON.stringify(card));
    t.same(res.json(), { status: 'fields_in_error', session: { id: session.id }, errors, version: '100' }, JSON.stringify(errors));
    t.notMatch(res.body, PAN);
  }
  // A card number in the name is refused as in any free text, naming the member: the session
  // frame reports it as nameOnCard invalid (web/hosted/controller.html), the number not quoted.
  const named = await a.inject({ method: 'PUT', url: `${form()}/session/${session.id}`, payload: { card: { number: PAN, nameOnCard: `Jo ${PAN}` } } });
  t.equal(named.statusCode, 400);
  t.equal(named.json().error.field, 'card.nameOnCard');
  t.notMatch(named.body, PAN);
  t.equal((await a.gateway.store.readAll()).length, before, 'no event');
  // The security code and the name are optional: left empty, the card is stored without them.
  const ok = await a.inject({ method: 'PUT', url: `${form()}/session/${session.id}`, payload: { card: { number: PAN, expiryMonth: '5', expiryYear: '39', securityCode: '', nameOnCard: '' } } });
  t.equal(ok.json().status, 'ok');
  t.notOk(ok.json().sourceOfFunds.provided.card.securityCode, 'no security code given: none in the answer');
});

t.test('a session the gateway does not hold: request_timeout; another site\'s request: refused', async (t) => {
  const a = await buildTestApp(t);
  const unknown = 'SESSION000000000000000000000001';
  const res = await a.inject({ method: 'PUT', url: `${form()}/session/${unknown}`, payload: { card: { number: PAN } } });
  t.equal(res.statusCode, 404);
  t.equal(res.json().status, 'request_timeout');
  t.match(res.json().errors.message, /expired or is unknown/);
  // Another merchant's session is unknown to this one.
  const session = await newSession(a);
  const other = await a.inject({ method: 'PUT', url: `${form(M2.id)}/session/${session.id}`, payload: { card: { number: PAN } } });
  t.equal(other.json().status, 'request_timeout');
  const cross = await a.inject({ method: 'PUT', url: `${form()}/session/${session.id}`, headers: { 'sec-fetch-site': 'cross-site' }, payload: { card: { number: PAN } } });
  t.equal(cross.statusCode, 403);
  t.equal(cross.json().result, 'ERROR');
  t.equal((await a.gateway.store.readAll()).filter((e) => e.type === 'SessionUpdated').length, 0, 'nothing stored');
});
