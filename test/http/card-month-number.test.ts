// The card's expiry month sent as a JSON integer on the order API is read as its digits: Omnipay's
// CreditCard holds the month as an integer, so the Omnipay drivers' PAY sends "month":5 (with the
// year as a string, "31"), and the real gateway took it (digistorm/omnipay-mpgs's recorded answer:
// "expiry":{"month":"5","year":"21"}). Only an integer 1 to 12 is read; the year and the other card
// fields stay strings. The month 1, "1" and "01" are one value: a retry of the same transaction
// with another of them is the same request (its recorded answer), not a different one.
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid, type App } from './http.fixture.js';

const pay = (a: App, expiry: Record<string, unknown>, orderId = uniqueId(), transactionId = `${uniqueId()}-1`) => a.inject({
  method: 'PUT',
  url: `/api/rest/version/56/merchant/${M1.id}/order/${orderId}/transaction/${transactionId}`,
  headers: { authorization: tokenAuth(M1), 'content-type': 'application/json; charset=utf-8' },
  payload: {
    apiOperation: 'PAY', order: { amount: '10.00', currency: 'AUD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number: '5111111111111118', securityCode: '123', expiry } } },
  },
});

t.test('PAY with the month as a JSON integer, as Omnipay sends it: approved, the month shown as its digits', async (t) => {
  const a = await buildTestApp(t);
  for (const month of [5, 12, 1]) {
    const paid = await pay(a, { month, year: '31' });
    t.equal(paid.statusCode, 201, paid.body);
    t.equal(paid.json().result, 'SUCCESS', `month ${month}: SUCCESS`);
    t.same(paid.json().sourceOfFunds.provided.card.expiry, { month: String(month), year: '31' }, `month ${month}: shown as "${month}"`);
  }
});

t.test('a month number out of 1 to 12, or not an integer, and a year as a number are still refused', async (t) => {
  const a = await buildTestApp(t);
  for (const month of [0, 13, 5.5, -1]) {
    expectInvalid(t, await pay(a, { month, year: '31' }), { field: 'sourceOfFunds.provided.card.expiry.month', validationType: 'INVALID' }, `month ${month}`);
  }
  expectInvalid(t, await pay(a, { month: 5, year: 31 }), { field: 'sourceOfFunds.provided.card.expiry.year', validationType: 'INVALID' }, 'a year as a number');
});

t.test('a retry with the month written another way (1, "1", "01") is the same request: the recorded answer', async (t) => {
  const a = await buildTestApp(t);
  for (const [first, retry] of [['1', '01'], [1, '01'], ['01', '1'], ['01', 1], ['12', 12]] as const) {
    const orderId = uniqueId();
    const paid = await pay(a, { month: first, year: '31' }, orderId, '1');
    t.equal(paid.statusCode, 201, `month ${JSON.stringify(first)}: paid`);
    const again = await pay(a, { month: retry, year: '31' }, orderId, '1');
    t.equal(again.statusCode, 201, `month ${JSON.stringify(first)} then ${JSON.stringify(retry)}: ${again.body}`);
    t.same(again.json(), paid.json(), `month ${JSON.stringify(first)} then ${JSON.stringify(retry)}: the recorded answer`);
  }
  const orderId = uniqueId();
  t.equal((await pay(a, { month: '01', year: '31' }, orderId, '1')).statusCode, 201);
  expectInvalid(t, await pay(a, { month: '02', year: '31' }, orderId, '1'), { explanation: /with a different request/ }, 'another month is another request');
});
