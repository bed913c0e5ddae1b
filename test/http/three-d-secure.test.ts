// 3-D Secure on the order API as a merchant's checkout runs it: Initiate Authentication,
// Authenticate Payer (frictionless, or a challenge on the emulator's page), then a PAY naming the
// authentication, which carries its result; identical repeats answer the same; bad requests get
// the gateway's error body naming the field. The emulator's test cards row by row:
// three-d-secure-cards.test.ts.
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { streams } from '../../domain/events.js';
import { orderKey, type OrderDoc } from '../../projections/orders.js';
import {
  answerChallenge, authenticate, authenticateBody, cardSource, formAction, formFields, initiateBody, newFlow, payBody, put, RETURN_URL, submitChallenge,
  transactionUrl,
} from './three-d-secure.fixture.js';

const CHALLENGE = '5123450000000008';
const FRICTIONLESS = '4440000042200014';

const ADMIN = 'admin-password-for-the-3ds-tests-0123456789';

t.test('a frictionless card: Initiate, Authenticate Payer answers Y at once, the PAY carries the result and is approved', async (t) => {
  const app = await buildTestApp(t, { adminPassword: ADMIN });
  const f = newFlow(app);
  const { initiated, payer } = await authenticate(f, FRICTIONLESS);
  t.equal(initiated.statusCode, 201, initiated.body);
  const i = initiated.json();
  t.strictSame([i.result, i.response.gatewayCode, i.response.gatewayRecommendation], ['SUCCESS', 'AUTHENTICATION_IN_PROGRESS', 'PROCEED']);
  t.strictSame([i.authentication.version, i.transaction.authenticationStatus, i.order.authenticationStatus, i.order.status],
    ['3DS2', 'AUTHENTICATION_AVAILABLE', 'AUTHENTICATION_AVAILABLE', 'AUTHENTICATION_INITIATED']);
  t.strictSame([i.transaction.type, i.transaction.amount, i.sourceOfFunds.provided.card.number], ['AUTHENTICATION', 0, '444000xxxxxx0014']);
  t.equal(i.authentication['3ds2'].methodSupported, 'SUPPORTED', 'the card has an ACS method');
  t.match(i.authentication.redirect.html, /id="initiate3dsSimpleRedirect"/, 'the method call HTML');
  t.match(formAction(i.authentication.redirect.html), /^http:\/\/localhost(:80)?\/acs\/mastercard\/v2\/method$/);
  const p = payer.json();
  t.strictSame([p.result, p.response.gatewayCode, p.response.gatewayRecommendation], ['SUCCESS', 'APPROVED', 'PROCEED']);
  t.strictSame([p.authentication['3ds2'].transactionStatus, p.authentication['3ds'].acsEci, p.authentication['3ds'].authenticationToken],
    ['Y', '05', 'mHyn+7YFi1EUAREAAAAvNUe6Hv8=']);
  t.strictSame([p.transaction.authenticationStatus, p.order.status, p.order.amount, p.authentication.payerInteraction],
    ['AUTHENTICATION_SUCCESSFUL', 'AUTHENTICATED', 12.5, 'NOT_REQUIRED']);
  t.equal(formAction(p.authentication.redirect.html), RETURN_URL, 'frictionless: the HTML posts straight back to the merchant');
  t.strictSame(formFields(p.authentication.redirect.html), { 'order.id': f.orderId, 'transaction.id': 'a1', 'response.gatewayRecommendation': 'PROCEED', result: 'SUCCESS' });

  const paid = await put(f, 'p1', payBody('a1', cardSource(FRICTIONLESS)));
  t.equal(paid.statusCode, 201, paid.body);
  const pay = paid.json();
  t.strictSame([pay.result, pay.response.gatewayCode, pay.order.status], ['SUCCESS', 'APPROVED', 'CAPTURED']);
  t.strictSame(pay.authentication, {
    '3ds': { acsEci: '05', authenticationToken: 'mHyn+7YFi1EUAREAAAAvNUe6Hv8=', transactionId: p.authentication['3ds'].transactionId },
    '3ds2': { dsTransactionId: p.authentication['3ds2'].dsTransactionId, protocolVersion: '2.2.0', transactionStatus: 'Y' },
    transactionId: 'a1', version: '3DS2',
  }, 'the PAY carries the authentication it used');
  t.strictSame([pay.order.authenticationStatus, pay.transaction.authenticationStatus], ['AUTHENTICATION_SUCCESSFUL', 'AUTHENTICATION_SUCCESSFUL']);
  t.strictSame(pay.risk.response.rule, [{ data: 'LIABILITY_SHIFT', name: 'MERCHANT_3D_SECURE', recommendation: 'NO_ACTION', type: 'MERCHANT_RULE' }]);

  const order = (await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${f.orderId}`, headers: { authorization: tokenAuth(M1) } })).json();
  t.strictSame(order.transaction.map((x: { transaction: { id: string; type: string } }) => [x.transaction.id, x.transaction.type]),
    [['a1', 'AUTHENTICATION'], ['p1', 'PAYMENT']], 'Retrieve Order: the authentication first');
  t.equal(order.authenticationStatus, 'AUTHENTICATION_SUCCESSFUL');
  const events = await app.gateway.store.readStream(streams.order(M1.id, f.orderId));
  t.strictSame(events.map((e) => e.type), ['AuthenticationInitiated', 'PayerAuthenticated', 'OrderTransactionRecorded']);
  t.notMatch(JSON.stringify(events.map((e) => e.data)), /4440000042200014/, 'no card number in the events');
  // The orders read model (the order's history page folds its evolve): the authentication and the payment that used it.
  const doc = await app.gateway.readModels.get<OrderDoc>('orders', orderKey(M1.id, f.orderId));
  t.strictSame(doc?.transactions.map((x) => [x.id, x.type, x.result, x.authenticationStatus, x.authenticationTransactionId]), [
    ['a1', 'AUTHENTICATION', 'SUCCESS', 'AUTHENTICATION_SUCCESSFUL', undefined],
    ['p1', 'PAYMENT', 'SUCCESS', 'AUTHENTICATION_SUCCESSFUL', 'a1'],
  ]);
  t.strictSame([doc?.status, doc?.totalCapturedAmount, doc?.transactions[0]?.amount], ['CAPTURED', 1250, 1250]);
  const search = await app.inject({ method: 'GET', url: '/admin/api/search?q=a1', headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN}`).toString('base64')}` } });
  t.match(search.body, f.orderId, 'the admin search finds the order by the authentication\'s transaction id');
});

t.test('a challenge: PENDING, the page answers, the merchant is posted the result; PAY approved only after a passed challenge', async (t) => {
  const app = await buildTestApp(t);
  for (const [fields, status, result, recommendation, payCode] of [
    [{ selectAuthResult: 'AUTHENTICATED' }, 'AUTHENTICATION_SUCCESSFUL', 'SUCCESS', 'PROCEED', 'APPROVED'],
    [{ selectAuthResult: 'UNAUTHENTICATED' }, 'AUTHENTICATION_FAILED', 'FAILURE', 'DO_NOT_PROCEED', 'AUTHENTICATION_FAILED'],
    [{ otp: '123456', selectAuthResult: 'UNAUTHENTICATED' }, 'AUTHENTICATION_SUCCESSFUL', 'SUCCESS', 'PROCEED', 'APPROVED'],
    [{ otp: '000000' }, 'AUTHENTICATION_FAILED', 'FAILURE', 'DO_NOT_PROCEED', 'AUTHENTICATION_FAILED'],
    [{ cancel: '1', selectAuthResult: 'AUTHENTICATED' }, 'AUTHENTICATION_FAILED', 'FAILURE', 'DO_NOT_PROCEED', 'AUTHENTICATION_FAILED'],
  ] as const) {
    const what = JSON.stringify(fields);
    const f = newFlow(app);
    const { payer } = await authenticate(f, CHALLENGE);
    const p = payer.json();
    t.strictSame([p.result, p.response.gatewayCode, p.transaction.authenticationStatus, p.authentication['3ds2'].transactionStatus, p.order.status],
      ['PENDING', 'PENDING', 'AUTHENTICATION_PENDING', 'C', 'AUTHENTICATION_INITIATED'], `${what}: PENDING`);
    const early = (await put(f, 'p0', payBody('a1', cardSource(CHALLENGE)))).json();
    t.strictSame([early.result, early.response.gatewayCode], ['FAILURE', 'AUTHENTICATION_FAILED'], `${what}: a PAY before the challenge is answered is refused`);
    const { page, answered, back, backTo } = await answerChallenge(app, p.authentication.redirect.html, fields);
    t.equal(page.statusCode, 200, `${what}: the challenge page`);
    t.match(page.body, /id="selectAuthResult"/);
    t.match(page.body, /12\.50 USD/, `${what}: the page shows the amount`);
    // The form carries the creq, not the 3DS server transaction id: a UUID's digit groups may read
    // as a card number, which the gateway refuses in any request field (a random 400 for the payer).
    t.strictSame(Object.keys(formFields(page.body)), ['creq'], `${what}: the page's form names the challenge by its creq`);
    t.equal(answered.statusCode, 200, `${what}: answered`);
    t.equal(backTo, RETURN_URL, `${what}: posted back to the merchant's redirectResponseUrl`);
    t.strictSame(back, { 'order.id': f.orderId, 'transaction.id': 'a1', 'response.gatewayRecommendation': recommendation, result }, `${what}: the fields posted back`);
    const retrieved = (await app.inject({ method: 'GET', url: transactionUrl(f.orderId, 'a1'), headers: { authorization: tokenAuth(M1) } })).json();
    t.equal(retrieved.transaction.authenticationStatus, status, `${what}: Retrieve Transaction`);
    const pay = (await put(f, 'p1', payBody('a1', cardSource(CHALLENGE)))).json();
    t.equal(pay.response.gatewayCode, payCode, `${what}: the PAY`);
    t.equal(pay.authentication['3ds2'].transactionStatus, status === 'AUTHENTICATION_SUCCESSFUL' ? 'Y' : 'N', `${what}: the PAY's transStatus`);
    if (fields.cancel) t.equal(retrieved.authentication['3ds2'].challengeCancel, '01', 'cancelled: challengeCancel 01');
  }
});

t.test('identical repeats answer the same; a second answer on the challenge page posts the first result back', async (t) => {
  const app = await buildTestApp(t);
  const f = newFlow(app);
  const { initiated, payer } = await authenticate(f, CHALLENGE);
  const again = await authenticate(f, CHALLENGE);
  t.equal(again.initiated.body, initiated.body, 'Initiate repeated: the same answer');
  t.equal(again.payer.body, payer.body, 'Authenticate Payer repeated: the same answer');
  const first = await answerChallenge(app, payer.json().authentication.redirect.html, { selectAuthResult: 'UNAUTHENTICATED' });
  t.equal(first.back.result, 'FAILURE');
  const twice = await submitChallenge(app, first.action ?? '', { creq: formFields(first.page.body).creq ?? '', selectAuthResult: 'AUTHENTICATED' });
  t.strictSame(formFields(twice.body), first.back, 'the form posted again: the first answer stands');
  const reopened = await answerChallenge(app, payer.json().authentication.redirect.html, { selectAuthResult: 'AUTHENTICATED' });
  t.strictSame(reopened.back, first.back, 'the page opened again posts the first answer back');
  t.equal((await authenticate(f, CHALLENGE)).payer.body, payer.body, 'Authenticate Payer repeated after the challenge: its own answer');
  const pay = { ...payBody('a1', cardSource(CHALLENGE)), order: { amount: '12.50', currency: 'USD', reference: 'cart-42' } };
  const paid = await put(f, 'p1', pay);
  t.equal(paid.json().order.reference, 'cart-42');
  t.equal((await authenticate(f, CHALLENGE)).initiated.body, initiated.body, 'Initiate repeated after a PAY gave the order its reference: the order as Initiate left it');
  t.equal((await put(f, 'p1', pay)).body, paid.body, 'the PAY repeated: the same answer');
  const other = await put(f, 'a1', authenticateBody('99.00'));
  t.equal(other.statusCode, 400, 'Authenticate Payer with another body on the same transaction: refused');
  const events = await app.gateway.store.readStream(streams.order(M1.id, f.orderId));
  t.strictSame(events.map((e) => e.type), ['AuthenticationInitiated', 'PayerAuthenticationStarted', 'ChallengeAnswered', 'OrderTransactionRecorded']);
  t.strictSame(events.map((e) => e.metadata.merchantId), [M1.id, M1.id, M1.id, M1.id], 'the challenge\'s answer is the merchant\'s event too');
});

t.test('NVP: the same operations as name-value pairs', async (t) => {
  const app = await buildTestApp(t);
  const nvp = (fields: Record<string, string>) => app.inject({
    method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword, 'order.id': 'nvp-3ds', 'transaction.id': 'a1', ...fields }).toString(),
  });
  const initiated = new URLSearchParams((await nvp({
    apiOperation: 'INITIATE_AUTHENTICATION', 'authentication.channel': 'PAYER_BROWSER', 'order.currency': 'USD',
    'sourceOfFunds.provided.card.number': FRICTIONLESS, 'sourceOfFunds.provided.card.expiry.month': '1', 'sourceOfFunds.provided.card.expiry.year': '39',
  })).body);
  t.strictSame([initiated.get('result'), initiated.get('authentication.version'), initiated.get('transaction.authenticationStatus')], ['SUCCESS', '3DS2', 'AUTHENTICATION_AVAILABLE']);
  const payer = new URLSearchParams((await nvp({
    apiOperation: 'AUTHENTICATE_PAYER', 'authentication.redirectResponseUrl': RETURN_URL, 'order.amount': '12.50', 'order.currency': 'USD',
  })).body);
  t.strictSame([payer.get('result'), payer.get('authentication.3ds2.transactionStatus'), payer.get('authentication.3ds.acsEci')], ['SUCCESS', 'Y', '05']);
});

t.test('a PAY naming an unknown authentication, or another card\'s, is refused; a card without 3-D Secure', async (t) => {
  const app = await buildTestApp(t);
  const f = newFlow(app);
  await authenticate(f, FRICTIONLESS);
  const unknown = await put(f, 'p1', payBody('nope', cardSource(FRICTIONLESS)));
  t.equal(unknown.statusCode, 400);
  t.equal(unknown.json().error.field, 'authentication.transactionId');
  const other = await put(f, 'p2', payBody('a1', cardSource('5123456789012346')));
  t.equal(other.statusCode, 400, 'another card');
  t.equal(other.json().error.field, 'authentication.transactionId');
  const elsewhere = newFlow(app);
  const onOtherOrder = await put(elsewhere, 'p1', payBody('a1', cardSource(FRICTIONLESS)));
  t.equal(onOtherOrder.statusCode, 400, 'an authentication of another order');

  const plain = newFlow(app);
  const { initiated, payer } = await authenticate(plain, '5111111111111118');
  t.strictSame([initiated.json().authentication.version, initiated.json().transaction.authenticationStatus, initiated.json().order.status],
    ['NONE', 'AUTHENTICATION_NOT_SUPPORTED', 'AUTHENTICATION_NOT_NEEDED'], 'a card the emulator does not know: no 3-D Secure');
  t.equal(payer.json().authentication.redirect.html.includes(RETURN_URL), true, 'Authenticate Payer sends the payer straight back');
  const declined = (await put(plain, 'p1', payBody('a1', cardSource('5111111111111118')))).json();
  t.strictSame([declined.result, declined.response.gatewayCode], ['FAILURE', 'NOT_ENROLLED_3D_SECURE'], 'a PAY naming it: not enrolled');
  const without = (await put(plain, 'p2', payBody(undefined, cardSource('5111111111111118')))).json();
  t.equal(without.response.gatewayCode, 'APPROVED', 'a PAY without it goes on');
});

t.test('versions: before 63 the HTML is authentication.redirectHtml, before 55 the recommendations name what to proceed with; before 50 there is no 3-D Secure', async (t) => {
  const app = await buildTestApp(t);
  const old = newFlow(app, 57);
  const { initiated, payer } = await authenticate(old, CHALLENGE);
  t.match(initiated.json().authentication.redirectHtml, /initiate3dsSimpleRedirect/);
  t.ok(initiated.json().authentication.redirect.customized['3DS'].methodUrl, 'redirect.customized.3DS');
  t.notOk('html' in initiated.json().authentication.redirect, 'no redirect.html');
  t.match(payer.json().authentication.redirectHtml, /threedsChallengeRedirect/);
  t.ok(payer.json().authentication.redirect.customized['3DS'].cReq);
  const modern = (await authenticate(newFlow(app, 63), CHALLENGE)).payer.json();
  t.match(modern.authentication.redirect.html, /threedsChallengeRedirect/);
  t.ok(modern.authentication.redirect.customizedHtml['3ds2'].acsUrl);
  t.notOk('redirectHtml' in modern.authentication);
  const v52 = newFlow(app, 52);
  const older = await authenticate(v52, FRICTIONLESS);
  t.equal(older.initiated.json().response.gatewayRecommendation, 'PROCEED_WITH_AUTHENTICATION', 'version 52: Initiate recommends proceeding with authentication');
  t.equal(older.payer.json().response.gatewayRecommendation, 'PROCEED_WITH_PAYMENT', 'version 52: a successful authentication, with payment');
  t.equal(formFields(older.payer.json().authentication.redirectHtml)['response.gatewayRecommendation'], 'PROCEED_WITH_PAYMENT', 'and so says the post back');
  const challenged54 = (await authenticate(newFlow(app, 54), CHALLENGE)).payer.json();
  t.equal(challenged54.response.gatewayRecommendation, 'PROCEED_WITH_AUTHENTICATION', 'version 54: a challenge');
  const { back } = await answerChallenge(app, challenged54.authentication.redirectHtml, { selectAuthResult: 'AUTHENTICATED' });
  t.equal(back['response.gatewayRecommendation'], 'PROCEED_WITH_PAYMENT', 'the challenge page posts back in the version of the authentication');
  const v55 = await authenticate(newFlow(app, 55), CHALLENGE);
  t.equal(v55.initiated.json().response.gatewayRecommendation, 'PROCEED', 'version 55: Initiate says PROCEED');
  t.equal(v55.payer.json().response.gatewayRecommendation, 'PROCEED', 'version 55: a challenge, PROCEED');
  const back55 = (await answerChallenge(app, v55.payer.json().authentication.redirectHtml, { selectAuthResult: 'AUTHENTICATED' })).back;
  t.equal(back55['response.gatewayRecommendation'], 'PROCEED', 'version 55: the challenge page posts back PROCEED');
  const frictionless56 = (await authenticate(newFlow(app, 56), FRICTIONLESS)).payer.json();
  t.equal(formFields(frictionless56.authentication.redirectHtml)['response.gatewayRecommendation'], 'PROCEED', 'version 56: the frictionless post back says PROCEED');
  t.equal(initiated.json().response.gatewayRecommendation, 'PROCEED', 'version 57: PROCEED');
  const before = await put(newFlow(app, 49), 'a1', initiateBody(cardSource(CHALLENGE)));
  t.equal(before.statusCode, 400);
  t.strictSame([before.json().error.field, before.json().error.explanation], ['apiOperation', "Value 'INITIATE_AUTHENTICATION' is invalid. INITIATE_AUTHENTICATION is available from version 50"]);
});

t.test('bad requests: the gateway\'s error body naming the field, nothing recorded', async (t) => {
  const app = await buildTestApp(t);
  const cases: Array<[string, object, string, string]> = [
    ['no channel', { ...initiateBody(cardSource(CHALLENGE)), authentication: {} }, 'authentication.channel', 'MISSING'],
    ['no currency', { ...initiateBody(cardSource(CHALLENGE)), order: {} }, 'order.currency', 'MISSING'],
    ['no card', initiateBody({}), 'sourceOfFunds.token', 'MISSING'],
    ['a bad channel', { ...initiateBody(cardSource(CHALLENGE)), authentication: { channel: 'CARRIER_PIGEON' } }, 'authentication.channel', 'INVALID'],
  ];
  for (const [what, body, field, validationType] of cases) {
    const res = await put(newFlow(app), 'a1', body);
    t.equal(res.statusCode, 400, what);
    t.strictSame([res.json().error.field, res.json().error.validationType], [field, validationType], what);
  }
  const f = newFlow(app);
  const payerFirst = await put(f, 'a1', authenticateBody());
  t.equal(payerFirst.statusCode, 400, 'Authenticate Payer before Initiate');
  t.equal(payerFirst.json().error.field, 'transactionId');
  await put(f, 'a1', initiateBody(cardSource(CHALLENGE)));
  for (const [what, body, field, validationType] of [
    ['a javascript: URL', authenticateBody('12.50', { authentication: { redirectResponseUrl: 'javascript:alert(1)' } }), 'authentication.redirectResponseUrl', 'INVALID'],
    ['no redirectResponseUrl', authenticateBody('12.50', { authentication: {} }), 'authentication.redirectResponseUrl', 'MISSING'],
    ['no amount', authenticateBody('12.50', { order: { currency: 'USD' } }), 'order.amount', 'MISSING'],
    ['another currency', authenticateBody('12.50', { order: { amount: '1.00', currency: 'EUR' } }), 'order.currency', 'INVALID'],
    ['order.notificationUrl', authenticateBody('12.50', { order: { amount: '1.00', currency: 'USD', notificationUrl: 'https://shop.example/n' } }), 'order.notificationUrl', 'UNSUPPORTED'],
    ['another card', authenticateBody('12.50', { sourceOfFunds: cardSource(FRICTIONLESS) }), 'sourceOfFunds', 'INVALID'],
  ] as const) {
    const res = await put(f, 'a1', body);
    t.equal(res.statusCode, 400, `${what}: ${res.body}`);
    t.strictSame([res.json().error?.field, res.json().error?.validationType], [field, validationType], what);
  }
  const events = await app.gateway.store.readStream(streams.order(M1.id, f.orderId));
  t.strictSame(events.map((e) => e.type), ['AuthenticationInitiated'], 'only the Initiate recorded');
});

t.test('the challenge page refuses a creq that opens no challenge', async (t) => {
  const app = await buildTestApp(t);
  const f = newFlow(app);
  const { payer } = await authenticate(f, CHALLENGE);
  const acs = new URL(formAction(payer.json().authentication.redirect.html)).pathname;
  const forged = Buffer.from(JSON.stringify({ threeDSServerTransID: '00000000-0000-4000-8000-000000000000' })).toString('base64');
  for (const creq of [forged, 'not base64 json', '']) {
    const res = await app.inject({ method: 'POST', url: acs, payload: `creq=${encodeURIComponent(creq)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    t.equal(res.statusCode, 400, `creq ${JSON.stringify(creq.slice(0, 10))}: 400`);
    t.match(res.headers['content-type'], /text\/html/, 'a page for the payer');
  }
  const frictionless = newFlow(app);
  await authenticate(frictionless, FRICTIONLESS);
  const none = await app.inject({ method: 'POST', url: acs.replace(f.orderId, frictionless.orderId), payload: 'creq=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(none.statusCode, 400, 'no challenge on a frictionless authentication');
});
