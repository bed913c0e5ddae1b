// The NVP protocol (routes/nvp.ts): POST /api/nvp/version/{n}, a form of dotted fields, the answer
// the same pairs. One operation layer: each apiOperation answers what the REST operation of the
// same name answers (compared pair by pair), with the same credential checks and locks.
import t from 'tap';
import { basic, buildTestApp, M1, M2, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
type Fields = Record<string, string>;
const NVP = '/api/nvp/version/55';
const creds = (m: { id: string; apiPassword: string } = M1) => ({ merchant: m.id, apiUsername: `merchant.${m.id}`, apiPassword: m.apiPassword });

async function nvp(a: App, fields: Fields, headers: Record<string, string> = {}, url = NVP) {
  const res = await a.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(fields).toString() });
  return { status: res.statusCode, type: String(res.headers['content-type']), body: res.body, pairs: Object.fromEntries(new URLSearchParams(res.body)) as Fields };
}
/** A JSON answer as the pairs NVP gives for it (an independent flattening). */
function pairsOf(value: unknown, prefix = '', out: Fields = {}): Fields {
  if (Array.isArray(value)) value.forEach((v, i) => pairsOf(v, `${prefix}[${i}]`, out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pairsOf(v, prefix ? `${prefix}.${k}` : k, out);
  else if (value !== undefined && value !== null) out[prefix] = String(value);
  return out;
}
const rest = (a: App, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  a.inject({ method, url: `/api/rest/version/55/merchant/${M1.id}${url}`, headers: { authorization: tokenAuth(M1) }, ...(payload ? { payload } : {}) });

t.test('a first session in NVP: session, card, token, PAY, retrieve, refund, void, delete, a refused PAY', async (t) => {
  const a = await buildTestApp(t);
  const session = await nvp(a, { apiOperation: 'CREATE_SESSION', ...creds(), 'session.authenticationLimit': '5' });
  t.equal(session.status, 201, session.body);
  t.match(session.type, /^application\/x-www-form-urlencoded/);
  t.equal(session.pairs.result, 'SUCCESS');
  t.equal(session.pairs['session.authenticationLimit'], '5', 'an integer field from its digits');
  const sessionId = session.pairs['session.id']!;
  t.match(sessionId, /^SESSION[0-9]{24}$/);

  const updated = await nvp(a, {
    apiOperation: 'UPDATE_SESSION', ...creds(), 'session.id': sessionId,
    'sourceOfFunds.provided.card.number': '5123450000000008', 'sourceOfFunds.provided.card.expiry.month': '1', 'sourceOfFunds.provided.card.expiry.year': '39',
  });
  t.equal(updated.status, 200, updated.body);
  t.equal(updated.pairs['sourceOfFunds.provided.card.number'], '512345xxxxxx0008', 'masked');

  const token = await nvp(a, { apiOperation: 'TOKENIZE', ...creds(), 'session.id': sessionId });
  t.equal(token.status, 201, token.body);
  t.equal(token.pairs.status, 'VALID');
  t.equal(token.pairs['sourceOfFunds.type'], 'CARD', "the session's card");
  const tokenId = token.pairs.token!;

  const order = uniqueId();
  const paid = await nvp(a, { apiOperation: 'PAY', ...creds(), 'order.id': order, 'transaction.id': '1', 'order.amount': '12.50', 'order.currency': 'USD', 'sourceOfFunds.token': tokenId, 'order.reference': 'cart 42' });
  t.equal(paid.status, 201, paid.body);
  t.same([paid.pairs.result, paid.pairs['response.gatewayCode'], paid.pairs['order.status'], paid.pairs['transaction.amount']], ['SUCCESS', 'APPROVED', 'CAPTURED', '12.5']);
  t.equal(paid.pairs['order.id'], order);

  // The same operation through REST answers the same pairs (retrievals: nothing differs in time).
  const viaRest = (await rest(a, 'GET', `/order/${order}/transaction/1`)).json();
  const retrieved = await nvp(a, { apiOperation: 'RETRIEVE_TRANSACTION', ...creds(), 'order.id': order, 'transaction.id': '1' });
  t.same(retrieved.pairs, pairsOf(viaRest), 'RETRIEVE_TRANSACTION: the REST answer, pair by pair');
  const orderPairs = await nvp(a, { apiOperation: 'RETRIEVE_ORDER', ...creds(), 'order.id': order });
  t.same(orderPairs.pairs, pairsOf((await rest(a, 'GET', `/order/${order}`)).json()), 'RETRIEVE_ORDER: the REST answer, list items as transaction[0]');
  t.equal(orderPairs.pairs['transaction[0].transaction.id'], '1');

  const refund = await nvp(a, { apiOperation: 'REFUND', ...creds(), 'order.id': order, 'transaction.id': '2', 'transaction.amount': '2.50', 'transaction.currency': 'USD' });
  t.equal(refund.pairs['order.status'], 'PARTIALLY_REFUNDED', refund.body);
  const voided = await nvp(a, { apiOperation: 'VOID', ...creds(), 'order.id': order, 'transaction.id': '3', 'transaction.targetTransactionId': '2' });
  t.equal(voided.pairs['transaction.type'], 'VOID_REFUND', voided.body);

  const deleted = await nvp(a, { apiOperation: 'DELETE_TOKEN', ...creds(), token: tokenId });
  t.same(deleted.pairs, { result: 'SUCCESS' }, deleted.body);
  const refused = await nvp(a, { apiOperation: 'PAY', ...creds(), 'order.id': uniqueId(), 'transaction.id': '1', 'order.amount': '1.00', 'order.currency': 'USD', 'sourceOfFunds.token': tokenId });
  t.equal(refused.status, 400);
  t.same(refused.pairs, { 'error.cause': 'INVALID_REQUEST', 'error.explanation': 'Token not found', 'error.field': 'sourceOfFunds.token', 'error.validationType': 'INVALID', result: 'ERROR' });
  t.equal(refused.body, 'error.cause=INVALID_REQUEST&error.explanation=Token+not+found&error.field=sourceOfFunds.token&error.validationType=INVALID&result=ERROR', 'form-encoded, names sorted');
  const gone = await nvp(a, { apiOperation: 'RETRIEVE_TOKEN', ...creds(), token: tokenId });
  t.equal(gone.pairs['error.field'], 'token', 'the path parameter named as the NVP field');
  const events = JSON.stringify((await a.gateway.store.readAll()).map((e) => e.data));
  t.notMatch(events, '5123450000000008', 'no card number in clear in any event');
});

t.test('one operation layer: a PAY sent in NVP and repeated in REST is the same transaction', async (t) => {
  const a = await buildTestApp(t);
  const card = { 'sourceOfFunds.provided.card.number': '5123450000000008', 'sourceOfFunds.provided.card.expiry.month': '5', 'sourceOfFunds.provided.card.expiry.year': '39' };
  const order = uniqueId();
  const first = await nvp(a, { apiOperation: 'AUTHORIZE', ...creds(), 'order.id': order, 'transaction.id': 't1', 'order.amount': '3.00', 'order.currency': 'EUR', ...card });
  t.equal(first.pairs['response.gatewayCode'], 'DECLINED', 'the expiry rules of the test acquirer (05/39)');
  const repeat = await rest(a, 'PUT', `/order/${order}/transaction/t1`, {
    apiOperation: 'AUTHORIZE', order: { amount: '3.00', currency: 'EUR' }, sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '5', year: '39' } } } },
  });
  t.equal(repeat.statusCode, 201, repeat.body);
  t.same(pairsOf(repeat.json()), first.pairs, 'the identical repeat answers the recorded transaction');
  t.equal((await a.gateway.store.readAll()).filter((e) => e.type === 'OrderTransactionRecorded').length, 1, 'recorded once');
});

t.test('NVP errors: fields, credentials, operations and malformed names, in pairs; card numbers never echoed', async (t) => {
  const a = await buildTestApp(t);
  const cases: Array<[string, Fields, number, Fields]> = [
    ['no merchant', { apiOperation: 'RETRIEVE_ORDER', apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword }, 400, { 'error.field': 'merchant', 'error.validationType': 'MISSING' }],
    ['a wrong password', { ...creds(), apiPassword: 'x'.repeat(32), apiOperation: 'RETRIEVE_ORDER' }, 401, { 'error.explanation': 'Invalid credentials.' }],
    ['no credentials', { merchant: M1.id, apiOperation: 'RETRIEVE_ORDER' }, 401, { 'error.explanation': 'Invalid credentials.' }],
    ["another merchant's credentials", { ...creds(M2), merchant: M1.id, apiOperation: 'RETRIEVE_ORDER' }, 401, { 'error.explanation': 'Authenticated entity not authorised to perform operation for target entity' }],
    ['no apiOperation', { ...creds() }, 400, { 'error.field': 'apiOperation', 'error.validationType': 'MISSING' }],
    ['an unknown apiOperation', { ...creds(), apiOperation: 'CHECKOUT' }, 400, { 'error.field': 'apiOperation' }],
    ['no order.id', { ...creds(), apiOperation: 'PAY', 'transaction.id': '1', 'order.amount': '1.00', 'order.currency': 'USD' }, 400, { 'error.field': 'order.id', 'error.validationType': 'MISSING' }],
    // The real gateway's words, no field (as the REST Retrieve Order: test/http/order-api.test.ts).
    ['an unknown order', { ...creds(), apiOperation: 'RETRIEVE_ORDER', 'order.id': 'nope' }, 400, { 'error.explanation': `Unable to find order nope for merchant ${M1.id}` }],
    ['an unexpected field', { ...creds(), apiOperation: 'CREATE_SESSION', 'order.colour': 'red' }, 400, { 'error.field': 'order', 'error.validationType': 'UNSUPPORTED' }],
    ['a malformed name', { ...creds(), apiOperation: 'CREATE_SESSION', 'session..id': '1' }, 400, { 'error.field': 'session..id', 'error.validationType': 'UNSUPPORTED' }],
    ['a name that is a group', { ...creds(), apiOperation: 'CREATE_SESSION', session: 'x', 'session.authenticationLimit': '2' }, 400, { 'error.field': 'session' }],
    ['a version deactivated', { ...creds(), apiOperation: 'CREATE_SESSION' }, 400, { 'error.field': 'version' }],
    ['a card number in a wrong field', { ...creds(), apiOperation: 'TOKENIZE', 'sourceOfFunds.type': 'CARD', 'sourceOfFunds.provided.card.number': '5123450000000008', 'sourceOfFunds.provided.card.expiry.month': '13', 'sourceOfFunds.provided.card.expiry.year': '39' }, 400, { 'error.field': 'sourceOfFunds.provided.card.expiry.month' }],
  ];
  for (const [what, fields, status, expected] of cases) {
    const res = await nvp(a, fields, {}, what === 'a version deactivated' ? '/api/nvp/version/22' : NVP);
    t.equal(res.status, status, `${what}: ${status} (${res.body})`);
    t.equal(res.pairs.result, 'ERROR', `${what}: result=ERROR`);
    t.equal(res.pairs['error.cause'], 'INVALID_REQUEST', `${what}: error.cause`);
    t.match(res.pairs, expected, what);
    t.notMatch(res.body, /5123450000000008|apiPassword|test-password/, `${what}: no card number or password echoed`);
  }
  const doubled = await a.inject({ method: 'POST', url: NVP, payload: 'merchant=A&merchant=B' });
  t.same([doubled.statusCode, Object.fromEntries(new URLSearchParams(doubled.body))['error.field']], [400, 'merchant'], 'a field given twice');
});

t.test('NVP credentials share the per-credential lock with REST; Basic works too; Check Gateway needs none', async (t) => {
  const a = await buildTestApp(t, { limits: { authFailureLimit: 3 } });
  const wrong = { ...creds(), apiPassword: 'x'.repeat(32), apiOperation: 'CREATE_SESSION' };
  t.equal((await nvp(a, wrong)).status, 401);
  t.equal((await nvp(a, wrong)).status, 401);
  t.equal((await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/session`, headers: { authorization: basic(`merchant.${M1.id}`, 'y'.repeat(32)) } })).statusCode, 401);
  const locked = await nvp(a, { apiOperation: 'CREATE_SESSION', ...creds() });
  t.equal(locked.status, 429, 'the right password is refused while the credential is locked (NVP)');
  t.equal(locked.pairs['error.cause'], 'REQUEST_REJECTED');
  t.equal((await rest(a, 'POST', '/session')).statusCode, 429, 'and through REST');
  const other = await nvp(a, { apiOperation: 'CREATE_SESSION', merchant: M2.id }, { authorization: tokenAuth(M2) });
  t.equal(other.status, 201, `Basic credentials in the header (${other.body})`);
  const check = await a.inject({ method: 'GET', url: '/api/nvp/version/55/information' });
  t.equal(check.statusCode, 200);
  t.match(Object.fromEntries(new URLSearchParams(check.body)), { status: 'OPERATING', gatewayVersion: /^tokengate-/ });
  t.equal((await a.inject({ method: 'POST', url: '/api/nvp/version/55/information' })).statusCode, 200, 'POST too');
});

t.test('Initiate Checkout in NVP: INITIATE_CHECKOUT from version 63, CREATE_CHECKOUT_SESSION before it, answered as REST answers, in pairs', async (t) => {
  const a = await buildTestApp(t);
  const checkout = (apiOperation: string, order: string) => ({
    apiOperation, ...creds(), 'interaction.operation': 'PURCHASE', 'interaction.returnUrl': 'https://shop.example/return', 'interaction.timeout': '600',
    'interaction.merchant.name': 'Demo Shop', 'order.id': order, 'order.amount': '12.50', 'order.currency': 'USD',
  });
  const initiated = await nvp(a, checkout('INITIATE_CHECKOUT', 'nvp-hco-1'), {}, '/api/nvp/version/100');
  t.equal(initiated.status, 201, initiated.body);
  t.match(initiated.pairs, { result: 'SUCCESS', checkoutMode: 'WEBSITE', merchant: M1.id, 'session.id': /^SESSION[0-9]{24}$/, 'session.updateStatus': 'SUCCESS', successIndicator: /^[0-9a-f]{16}$/ });
  const page = await a.inject({ method: 'GET', url: `/checkout/api/${initiated.pairs['session.id']}` });
  t.equal(page.statusCode, 200, `the payment page knows the checkout: ${page.body}`);
  // The same body in REST: the same members.
  const restAnswer = await a.inject({
    method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/session`, headers: { authorization: tokenAuth(M1) },
    payload: { apiOperation: 'INITIATE_CHECKOUT', interaction: { operation: 'PURCHASE', returnUrl: 'https://shop.example/return', timeout: 600, merchant: { name: 'Demo Shop' } }, order: { id: 'nvp-hco-2', amount: '12.50', currency: 'USD' } },
  });
  t.equal(restAnswer.statusCode, 201, restAnswer.body);
  t.same(Object.keys(pairsOf(restAnswer.json())).sort(), Object.keys(initiated.pairs).sort(), 'the pairs are the REST answer\'s members');

  const legacy = await nvp(a, checkout('CREATE_CHECKOUT_SESSION', 'nvp-hco-3'), {}, '/api/nvp/version/62');
  t.equal(legacy.status, 201, legacy.body);
  t.match(legacy.pairs, { result: 'SUCCESS', successIndicator: /^[0-9a-f]{16}$/ });
  t.notOk('checkoutMode' in legacy.pairs, 'no checkoutMode before version 63');
  for (const [name, version] of [['CREATE_CHECKOUT_SESSION', '100'], ['INITIATE_CHECKOUT', '62']] as const) {
    const refused = await nvp(a, checkout(name, 'nvp-hco-4'), {}, `/api/nvp/version/${version}`);
    t.match([refused.status, refused.pairs], [400, { result: 'ERROR', 'error.field': 'apiOperation' }], `${name} on version ${version}`);
  }
  const incomplete = await nvp(a, { ...checkout('INITIATE_CHECKOUT', 'nvp-hco-5'), 'order.currency': '' }, {}, '/api/nvp/version/100');
  t.equal(incomplete.status, 400, `an empty order.currency: ${incomplete.body}`);
});
