// Hosted Checkout's stored cards: Initiate Checkout's interaction.tokens (taken until version 100
// removed it) names tokens of the merchant's repository; the page's view offers them as the payer
// reads a card (masked number, brand, expiry, never the number), and paying with one's token pays
// with its card. Bad lists are refused on the field, with the gateway's error body.
import t from 'tap';
import { buildTestApp, createToken, M1, M2, tokenAuth, tokenPath } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';
import { checkoutBody, initiate, newCheckout, PAN, pay, queryOf, retrieveOrder, view } from './hosted-checkout.fixture.js';

const VISA = '4508750015741019';

t.test('interaction.tokens: the stored cards offered on the page, paid with by token; Retrieve Order shows the token\'s card', async (t) => {
  const a = await buildTestApp(t);
  const mastercard = await createToken(a);
  const visa = await createToken(a, M1, VISA, '7', '41');
  const c = await newCheckout(a, checkoutBody({}, { tokens: [mastercard, visa, mastercard] }), M1, 99);
  const shown = await view(a, c.session.id);
  t.equal(shown.statusCode, 200, shown.body);
  t.same(shown.json().storedCards, [
    { token: mastercard, number: '512345xxxxxx0008', brand: 'MASTERCARD', expiry: '0139' },
    { token: visa, number: '450875xxxxxx1019', brand: 'VISA', expiry: '0741' },
  ], 'each offered once, masked, with brand and expiry');
  t.notOk(shown.body.includes(PAN) || shown.body.includes(VISA), 'no card number in the page\'s view');
  t.notOk('storedCards' in (await view(a, (await newCheckout(a)).session.id)).json(), 'a checkout without tokens offers none');

  const paid = await pay(a, c.session.id, { token: visa });
  t.equal(paid.json().next, 'return', paid.body);
  t.equal(queryOf(paid.json().url).resultIndicator, c.successIndicator, 'paid: resultIndicator is the successIndicator');
  t.same((await pay(a, c.session.id, { token: visa })).json(), paid.json(), 'a second Pay answers where the first went');
  const order = (await retrieveOrder(a, c.orderId)).json();
  t.match(order, { status: 'CAPTURED', sourceOfFunds: { token: visa, provided: { card: { number: '450875xxxxxx1019', brand: 'VISA' } } } });
  t.equal(order.transaction.length, 1, 'one payment');

  // Only an offered token pays: another of the merchant's repository is refused, no attempt used.
  const other = await createToken(a, M1, '4111111111111111', '1', '40');
  const later = await newCheckout(a, checkoutBody({}, { tokens: [mastercard, visa] }), M1, 80);
  t.match((await pay(a, later.session.id, { token: other })).json(), { next: 'error', error: { cause: 'INVALID_REQUEST', field: 'token', validationType: 'INVALID' } });
  t.equal((await view(a, later.session.id)).json().attemptsLeft, 3, 'no attempt used');
  t.match((await pay(a, (await newCheckout(a)).session.id, { token: visa })).json(), { next: 'error', error: { field: 'token' } }, 'a checkout without tokens pays with none');
  // A token deleted since Initiate Checkout is no longer offered, and no longer pays.
  const deleted = await a.inject({ method: 'DELETE', url: `${tokenPath(M1.id)}/${mastercard}`, headers: { authorization: tokenAuth(M1) } });
  t.equal(deleted.statusCode, 200, deleted.body);
  t.same((await view(a, later.session.id)).json().storedCards.map((card: { token: string }) => card.token), [visa]);
  t.match((await pay(a, later.session.id, { token: mastercard })).json(), { next: 'error', error: { field: 'sourceOfFunds.token' } }, 'the payment finds no such token');
});

t.test('interaction.tokens refused: from version 100, unknown, another repository\'s, a card number, empty, too many', async (t) => {
  const a = await buildTestApp(t);
  const own = await createToken(a);
  const others = await createToken(a, M2);
  const tokens = (list: unknown, version = 99) => initiate(a, checkoutBody({}, { tokens: list }), version);
  expectInvalid(t, await tokens([own], 100), { field: 'interaction.tokens', validationType: 'UNSUPPORTED' }, 'removed in version 100');
  expectInvalid(t, await tokens([own, '9999999999999999']), { field: 'interaction.tokens[1]', validationType: 'INVALID' }, 'an unknown token');
  expectInvalid(t, await tokens([others]), { field: 'interaction.tokens[0]', validationType: 'INVALID' }, 'another merchant\'s repository');
  const pan = await tokens([PAN]);
  expectInvalid(t, pan, { field: 'interaction.tokens[0]', validationType: 'INVALID' }, 'a card number');
  t.notOk(pan.body.includes(PAN), 'the card number is not echoed');
  expectInvalid(t, await tokens([]), { field: 'interaction.tokens' }, 'an empty list');
  expectInvalid(t, await tokens(Array.from({ length: 11 }, () => own)), { field: 'interaction.tokens' }, 'more than 10');
  expectInvalid(t, await tokens(['a b']), { field: 'interaction.tokens[0]' }, 'not a token\'s characters');
  expectInvalid(t, await tokens(own), { field: 'interaction.tokens' }, 'not a list');
});
