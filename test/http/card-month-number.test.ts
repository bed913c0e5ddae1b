// The card's expiry month sent as a JSON integer on the order API is read as its digits: Omnipay's
// CreditCard holds the month as an integer, so the Omnipay drivers' PAY sends "month":5 (with the
// year as a string, "31"), and the real gateway took it (digistorm/omnipay-mpgs's recorded answer:
// "expiry":{"month":"5","year":"21"}). Only an integer 1 to 12 is read; the year and the other card
// fields stay strings.
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid, type App } from './http.fixture.js';

const pay = (a: App, expiry: Record<string, unknown>) => a.inject({
  method: 'PUT',
  url: `/api/rest/version/56/merchant/${M1.id}/order/${uniqueId()}/transaction/${uniqueId()}-1`,
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
