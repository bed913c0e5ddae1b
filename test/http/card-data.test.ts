// Card data is never echoed in an error and never stored (full number, security code), and the
// request's correlationId is not persisted.
import t from 'tap';
import { buildTestApp, cardBody, M1, M2, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import type { EventStoreConfig } from '../../config.js';
import { expectInvalid, orderId, pay, payBody, storeText, type App } from './http.fixture.js';

const NUMBER_FIELD = 'sourceOfFunds.provided.card.number';
const CSC_FIELD = 'sourceOfFunds.provided.card.securityCode';

const create = (app: App, payload: unknown, merchant = M1) =>
  app.inject({ method: 'POST', url: tokenPath(merchant.id), headers: { authorization: tokenAuth(merchant) }, payload: payload as Record<string, unknown> });

t.test('an invalid card number is refused without echoing it', async (t) => {
  const app = await buildTestApp(t);
  const cases: Array<[string, unknown]> = [
    ['20 digits', '51234500000000000008'],
    ['letters', '51234500000000AB'],
    ['spaces', '5123 4500 0000 0008'],
    ['8 digits', '51234500'],
    ['Luhn failure', '5123450000000009'],
    ['Luhn failure (Visa)', '4508750015741018'],
    ['a JSON number', 5123450000000008],
  ];
  for (const [what, number] of cases) {
    const res = await create(app, cardBody(number as string));
    const body = expectInvalid(t, res, { field: NUMBER_FIELD, validationType: 'INVALID' }, what);
    t.notOk(body.error.explanation?.includes(String(number)), `${what}: explanation does not contain the number (${body.error.explanation})`);
    t.notOk(res.body.includes(String(number)), `${what}: body does not contain the number`);
    const digits = String(number).replace(/\D/g, '');
    if (digits.length >= 12) t.notOk(res.body.includes(digits.slice(6, -4)), `${what}: nor its middle digits`);
  }
  t.equal(await app.gateway.store.headPosition(), 0n, 'nothing stored');
});

t.test('an invalid security code is refused without echoing it', async (t) => {
  const app = await buildTestApp(t);
  for (const securityCode of ['98x', '7a7a7', '98765', '9q', '']) {
    const res = await create(app, cardBody('5123450000000008', '1', '39', { securityCode }));
    const body = expectInvalid(t, res, { field: CSC_FIELD, validationType: 'INVALID' }, `token CSC '${securityCode}'`);
    if (securityCode !== '') t.notOk(body.error.explanation?.includes(securityCode), `'${securityCode}' not in the explanation (${body.error.explanation})`);
  }
  // The pay request's card.securityCode is card data too.
  const token = (await create(app, cardBody())).json().token as string;
  for (const securityCode of ['98x', '98765']) {
    const res = await pay(app, token, payBody({}, { card: { securityCode } }));
    const body = expectInvalid(t, res, { field: 'card.securityCode', validationType: 'INVALID' }, `pay CSC '${securityCode}'`);
    t.notOk(body.error.explanation?.includes(securityCode), `pay: '${securityCode}' not in the explanation (${body.error.explanation})`);
  }
});

t.test('a malformed body never has a snippet of itself (card data) in the explanation', async (t) => {
  const app = await buildTestApp(t);
  const bodies = [
    // V8 quotes the text around the error: the security code, the end of the card number.
    '{"sourceOfFunds":{"type":"CARD","provided":{"card":{"number":"5123450000000008","securityCode":"7391","n":}}}}',
    '{"sourceOfFunds":{"type":"CARD","provided":{"card":{"securityCode":"7391","number":"5123456789012346","n":t}}}}',
    '{"sourceOfFunds":{"type":"CARD","provided":{"card":{"number":"5123450000000008",x}}}}',
  ];
  for (const payload of bodies) {
    const res = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload });
    const body = expectInvalid(t, res, {}, 'malformed JSON');
    const explanation = body.error.explanation ?? '';
    t.notMatch(explanation, /7391/, `no security code in: ${explanation}`);
    t.notMatch(explanation, /0000008|9012346|000000|78901/, `no card digits in: ${explanation}`);
    t.notMatch(explanation, /"/, `no quoted body text in: ${explanation}`);
  }
});

const STORES: Array<[string, EventStoreConfig]> = [['memory', { kind: 'memory' }], ['sqlite', { kind: 'sqlite', path: ':memory:' }]];
for (const [name, eventStore] of STORES) {
  t.test(`${name} store: no full card number, security code or body correlationId is stored`, async (t) => {
    const app = await buildTestApp(t, { eventStore });
    const cards: Array<[typeof M1, string, string]> = [
      [M1, '5123450000000008', '7391'],
      [M1, '4508750015741019', '8264'],
      [M2, '2223000000000007', '5937'],
      [M1, '345678901234564', '6128'],
    ];
    for (const [i, [merchant, number, securityCode]] of cards.entries()) {
      const created = await create(app, { ...cardBody(number, '1', '39', { securityCode, nameOnCard: 'Jane Public' }), correlationId: `tok-corr-${i}` }, merchant);
      t.equal(created.statusCode, 201, created.body);
      t.notOk(created.body.includes(number), 'token response has no full number');
      t.notOk(created.body.includes(`"${securityCode}"`), 'token response has no security code');
      const token = created.json().token as string;
      const paid = await app.inject({
        method: 'PUT', url: payPath(merchant.id, token, orderId(), '1'), headers: { authorization: payAuth(merchant) },
        payload: payBody({}, { card: { securityCode: '4826' }, correlationId: `pay-corr-${i}` }),
      });
      t.equal(paid.statusCode, 201, paid.body);
      t.notOk(paid.body.includes(number), 'pay response has no full number');
    }
    const text = await storeText(app);
    t.match(text, /512345xxxxxx0008/, 'the store does hold the masked cards (sanity)');
    t.match(text, /PaymentRecorded/, 'and the payments');
    for (const [i, [, number, securityCode]] of cards.entries()) {
      t.notOk(text.includes(number), `${number} not stored`);
      t.notOk(text.includes(`"${securityCode}"`), `security code ${securityCode} not stored`);
      t.notOk(text.includes(`tok-corr-${i}`), 'token request correlationId not stored');
      t.notOk(text.includes(`pay-corr-${i}`), 'pay request correlationId not stored');
    }
    t.notOk(text.includes('"4826"'), 'pay security code not stored');
    t.notMatch(text, /securityCode/, 'no securityCode member anywhere');
  });
}
