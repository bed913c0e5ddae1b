// The order API keeps the customer details a merchant's own PAY, AUTHORIZE or VERIFY sends
// (customer.email, firstName, lastName, phone, mobilePhone, taxRegistrationId), as sent, and
// shows them: in its answer, a repeat's, Retrieve Transaction, and Retrieve Order at the order's
// level. A later CAPTURE, REFUND or VOID shows the order's (the real gateway's recorded answers to
// a CAPTURE, a REFUND and a VOID that sent none carried the authorization's billing details).
// Telephone numbers are taken in any notation (ActiveMerchant's "(555)555-5555"), 1 to 20
// characters; a member sent as null counts as not sent; the payment's event holds them.
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { eventsOfType, expectInvalid, storeText, type App } from './http.fixture.js';

const orderPath = (order: string, version = 100) => `/api/rest/version/${version}/merchant/${M1.id}/order/${encodeURIComponent(order)}`;
const put = (a: App, order: string, txn: string, payload: Record<string, unknown>, version = 100) =>
  a.inject({ method: 'PUT', url: `${orderPath(order, version)}/transaction/${txn}`, headers: { authorization: tokenAuth(M1) }, payload });
const get = (a: App, url: string) => a.inject({ method: 'GET', url, headers: { authorization: tokenAuth(M1) } });

const CUSTOMER = {
  email: 'longbob@example.com', firstName: 'Longbob', lastName: 'Longsen', phone: '(555)555-5555', mobilePhone: '+1 6135550199', taxRegistrationId: 'CA-123456789',
};

t.test('PAY with customer: echoed by the answer, a repeat, Retrieve Transaction and Retrieve Order; a later CAPTURE and VOID show the order\'s', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  const body = { apiOperation: 'AUTHORIZE', order: { amount: '30.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer: CUSTOMER };
  const first = await put(a, order, '1', body);
  t.equal(first.statusCode, 201, first.body);
  t.equal(first.json().response.gatewayCode, 'APPROVED');
  t.same(first.json().customer, CUSTOMER, 'the answer: every member as sent');
  const repeat = await put(a, order, '1', body);
  t.equal(repeat.statusCode, 201, repeat.body);
  t.same(repeat.json(), first.json(), 'an identical repeat answers the same');
  t.same((await get(a, `${orderPath(order)}/transaction/1`)).json().customer, CUSTOMER, 'Retrieve Transaction');

  // As ActiveMerchant captures: its customer and billing groups sent again, with no first name.
  const captured = await put(a, order, 'c1', { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD', reference: '1' }, customer: { phone: '(555)555-5555' } });
  t.equal(captured.statusCode, 201, captured.body);
  t.same(captured.json().customer, CUSTOMER, 'a CAPTURE: the order\'s customer');
  const voided = await put(a, order, 'v1', { apiOperation: 'VOID', transaction: { targetTransactionId: 'c1' } });
  t.equal(voided.statusCode, 201, voided.body);
  t.same(voided.json().customer, CUSTOMER, 'a VOID sending none: the order\'s customer');
  t.same((await get(a, `${orderPath(order)}/transaction/c1`)).json().customer, CUSTOMER, 'Retrieve Transaction of the capture');

  const retrieved = (await get(a, orderPath(order))).json();
  t.same(retrieved.customer, CUSTOMER, 'Retrieve Order: at the order\'s level');
  t.same(retrieved.transaction.map((x: { customer?: unknown }) => x.customer), [CUSTOMER, CUSTOMER, CUSTOMER], 'and on each transaction');
  t.notOk('billing' in retrieved, 'no billing address sent: none shown');

  const [event] = await eventsOfType(a, 'OrderTransactionRecorded');
  t.same((event?.data as { payer?: unknown }).payer, { customer: CUSTOMER }, 'the payment\'s event holds the payer\'s details');

  // A PAY through version 60, some members only, one of them null: those sent.
  const other = uniqueId();
  const paid = await put(a, other, '1', { apiOperation: 'PAY', order: { amount: '5.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer: { firstName: 'Ann', lastName: null, phone: '555 0100' } }, 60);
  t.equal(paid.statusCode, 201, paid.body);
  t.same(paid.json().customer, { firstName: 'Ann', phone: '555 0100' }, 'only the members sent');
  const plain = await put(a, uniqueId(), '1', { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer: {} });
  t.equal(plain.statusCode, 201, plain.body);
  t.notOk('customer' in plain.json(), 'an empty customer group: none shown');
});

t.test('VERIFY echoes the customer; a member out of bounds is refused on its field, nothing recorded', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const verified = await put(a, uniqueId(), 'v', { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer: { lastName: 'Smith', mobilePhone: '07700 900123' } });
  t.equal(verified.statusCode, 201, verified.body);
  t.same(verified.json().customer, { lastName: 'Smith', mobilePhone: '07700 900123' });

  const cases: Array<[Record<string, unknown>, string]> = [
    [{ firstName: 'x'.repeat(51) }, 'customer.firstName'],
    [{ lastName: '' }, 'customer.lastName'],
    [{ phone: '1'.repeat(21) }, 'customer.phone'],
    [{ mobilePhone: 5550100 }, 'customer.mobilePhone'],
    [{ taxRegistrationId: 'T'.repeat(31) }, 'customer.taxRegistrationId'],
    [{ email: 'not an address' }, 'customer.email'],
  ];
  for (const [customer, field] of cases) {
    const order = uniqueId();
    expectInvalid(t, await put(a, order, '1', { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer }), { field }, field);
    t.equal((await get(a, orderPath(order))).statusCode, 400, `${field}: no order recorded`);
  }
  const bounds = await put(a, uniqueId(), '1', {
    apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token },
    customer: { firstName: 'F'.repeat(50), phone: '+44 (0)20 7946 0958'.slice(0, 20), taxRegistrationId: 'T'.repeat(30) },
  });
  t.equal(bounds.statusCode, 201, `at the bounds: ${bounds.body}`);
});

t.test('an email holding a control character (NUL, another C0, DEL, C1) is refused on PAY in the gateway\'s body, nothing recorded; an internationalized one is kept', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const pay = (email: string, order = uniqueId()) =>
    put(a, order, '1', { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer: { email } });
  for (const email of ['jo\u0000@example.com', 'jo@example.com\u0000', 'jo\tx@example.com', 'jo@exa\u001bmple.com', 'jo\u007f@example.com', 'jo@example.c\u009fom']) {
    const order = uniqueId();
    expectInvalid(t, await pay(email, order), { field: 'customer.email', validationType: 'INVALID', explanation: /is invalid/ }, JSON.stringify(email));
    t.equal((await get(a, orderPath(order))).statusCode, 400, `${JSON.stringify(email)}: no order recorded`);
  }
  t.equal(await a.gateway.store.headPosition(), 1n, 'nothing recorded but the token');
  const kept = await pay('jürgen@bücher.example');
  t.equal(kept.statusCode, 201, kept.body);
  t.same(kept.json().customer, { email: 'jürgen@bücher.example' }, 'echoed as sent');
});

t.test('a telephone number holding a card number is refused, nothing recorded; one in international notation is kept', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const pay = (customer: Record<string, unknown>, order = uniqueId()) =>
    put(a, order, '1', { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer });
  // 16 digits after '+' (more than any international number has), or among other characters.
  for (const phone of ['+4111111111111111', '+4111 1111 1111 1111', 'tel 4111111111111111']) {
    expectInvalid(t, await pay({ phone }), { field: 'customer.phone', explanation: /card number/ }, phone);
    expectInvalid(t, await pay({ mobilePhone: phone }), { field: 'customer.mobilePhone', explanation: /card number/ }, phone);
  }
  t.equal(await a.gateway.store.headPosition(), 1n, 'nothing recorded but the token');
  const kept = await pay({ phone: '+44 20 7946 0958', mobilePhone: '+8613800138000' });
  t.equal(kept.statusCode, 201, kept.body);
  t.same(kept.json().customer, { phone: '+44 20 7946 0958', mobilePhone: '+8613800138000' });
  t.notMatch(await storeText(a), /4111.?1111.?1111.?1111/, 'no card number in the events');
  // 15 digits passing Luhn (an American Express test number) pass as an international number: kept masked.
  const amex = await pay({ phone: '+378282246310005', mobilePhone: '+3782 822463 10005' });
  t.equal(amex.statusCode, 201, amex.body);
  t.same(amex.json().customer, { phone: '+378282xxxxx0005', mobilePhone: '+378282xxxxx0005' });
  t.notMatch(await storeText(a), /3782.?8224.?63.?10005/, 'no card number in the events');
  // A country code before a 13 or 14-digit card number (the digits together pass no Luhn check): kept masked too.
  const coded = await pay({ phone: '+12 4222222222222', mobilePhone: '+1 3614 8900 647913' });
  t.equal(coded.statusCode, 201, coded.body);
  t.same(coded.json().customer, { phone: '+12 4222xxxxx2222', mobilePhone: '+1 3614 8xxx xx7913' });
  t.notMatch(await storeText(a), /4222222222222|3614.?8900.?6479/, 'no card number in the events');
});

t.test('a repeat of a CAPTURE answers as the first did, after a payment recorded in the same millisecond sent other details', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  // Every request in one millisecond (a fast client, or a coarse clock).
  const now = Date.now;
  const frozen = now();
  Date.now = () => frozen;
  t.teardown(() => { Date.now = now; });
  const order = uniqueId();
  const authorized = await put(a, order, '1', { apiOperation: 'AUTHORIZE', order: { amount: '30.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer: { firstName: 'Ann' } });
  t.equal(authorized.statusCode, 201, authorized.body);
  const capture = { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD' } };
  const first = await put(a, order, 'c', capture);
  t.same(first.json().customer, { firstName: 'Ann' }, 'the capture shows the authorization\'s customer');
  const verified = await put(a, order, 'v', { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, customer: { firstName: 'Bob' } });
  t.equal(verified.statusCode, 201, verified.body);
  t.equal(verified.json().timeOfRecord, first.json().timeOfRecord, 'recorded in the same millisecond');
  const repeat = await put(a, order, 'c', capture);
  t.same(repeat.json(), first.json(), 'the repeat answers as the first did');
  t.same((await get(a, `${orderPath(order)}/transaction/c`)).json().customer, { firstName: 'Ann' }, 'Retrieve Transaction too');
});
