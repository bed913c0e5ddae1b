// A card number sent in a free-text field (order.reference, a description, a street, a name...)
// was stored and shown in the clear: in the events, the export, the timeline, the notifications
// and the CLI. It is refused (400 naming the field), in every string of every operation's body
// but the fields meant for card and bank account numbers. The fields are listed from the
// operations' own schemas (the OpenAPI document): a field added later is covered without a word here.
// NVP's operations too: each field of the REST operation of the same name, sent dotted in the form.
import t from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, cardBody, createToken, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { notFreeText } from '../../plugins/request-values.js';
import { digitsOf } from '../../lib/card-digits.js';
import { expectInvalid, luhn, storeText } from './http.fixture.js';
import { ADMIN_PASSWORD, authFor, fill, NVP_CREDENTIALS, OPEN_MEMBERS, operations, requestOf } from './request-values.fixture.js';

const CARD = /must not hold a card number/;
/** How a card number turns up in text: alone, among words, in groups, glued to letters; several brands and lengths. */
const FORMS = [
  '6011000990139424', 'ref 6011000990139424', '6011 0009 9013 9424', 'INV-6011-0009-9013-9424', 'x4012000033330026y',
  '3782 822463 10005', '4222222222222', 'card 5123-4500-0000-0008 exp 01/39',
  // Other separators and other digits (lib/card-digits.ts).
  '4111.1111.1111.1111', '4111(1111)1111-1111', '4111/1111/1111/1111', '4111_1111_1111_1111', '４１１１１１１１１１１１１１１１',
  '٤١١١١١١١١١١١١١١١', '6011\u00a00009\u00a09013\u00a09424', '6011\u20130009\u20139013\u20139424',
];
/** The digits between the first 6 and the last 4, as written and as ASCII digits: what must never come back. */
const hidden = (value: string) => [[...value].filter((c) => /\p{Nd}/u.test(c)).slice(6, -4).join(''), digitsOf(value).slice(6, -4)];

t.test('every string field of every operation\'s body refuses a card number, but those meant for one', async (t) => {
  const app = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD, testControl: true });
  let refused = 0;
  const exempt: string[] = [];
  const nvp = new Set<string>();
  for (const op of await operations(app)) {
    const fields = [...op.bodyStrings, ...(op.openBody ? OPEN_MEMBERS : [])];
    for (const field of fields) {
      if (notFreeText(field.split('.').at(-1) ?? field, FORMS[0] as string)) {
        exempt.push(field);
        continue;
      }
      const value = FORMS[refused % FORMS.length] as string;
      const res = await app.inject(requestOf(op, fill(op.path), field, value));
      expectInvalid(t, res, { field, explanation: CARD }, `${op.method} ${op.path}${op.nvp ? ` ${op.nvp.apiOperation}` : ''}: '${value}' in ${field}`);
      if (op.nvp) nvp.add(op.nvp.apiOperation);
      t.notOk(hidden(value).some((middle) => res.body.includes(middle)), `${field}: the number is not echoed`);
      refused++;
    }
  }
  t.ok(refused >= 200, `${refused} fields refuse a card number`);
  t.ok(nvp.has('PAY') && nvp.has('TOKENIZE') && nvp.has('UPDATE_SESSION'), `in NVP too: ${[...nvp].join(', ')}`);
  t.ok(exempt.includes('sourceOfFunds.provided.card.number'), `exempt: ${[...new Set(exempt)].join(', ')}`);
  t.equal(await app.gateway.store.headPosition(), 0n, 'nothing recorded');
});

t.test('an amount holding a card number is refused by the amount rule, the number not echoed', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const number = '4012000033330026';
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    [payPath(M1.id, token, '10000000009', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: number, currency: 'USD' } }, 'transaction.amount'],
    [`/api/rest/version/100/merchant/${M1.id}/order/o-amount/transaction/t-1`, tokenAuth(M1), { apiOperation: 'PAY', order: { amount: number, currency: 'USD' }, sourceOfFunds: { token } }, 'order.amount'],
  ];
  for (const [url, authorization, payload, field] of cases) {
    const res = await app.inject({ method: 'PUT', url, headers: { authorization }, payload });
    expectInvalid(t, res, { field }, `${number} in ${field}`);
    t.notOk(res.body.includes(number.slice(6, -4)), `${field}: the number is not echoed`);
  }
});

t.test('requests that were stored with a card number in them are refused, and nothing of it is kept', async (t) => {
  const app = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD });
  const token = await createToken(app);
  const order = `/api/rest/version/100/merchant/${M1.id}/order`;
  const modern = { authorization: tokenAuth(M1) };
  const pay = { apiOperation: 'PAY', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: { token } };
  const paid = await app.inject({ method: 'PUT', url: `${order}/o-1/transaction/t-1`, headers: modern, payload: pay });
  t.equal(paid.statusCode, 201, paid.body);
  const cases: Array<[string, string, string, Record<string, unknown>, string]> = [
    ['version 3 PAY', payPath(M1.id, token, '10000000001', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' }, order: { reference: '6011000990139424' } }, 'order.reference'],
    ['version 3 PAY', payPath(M1.id, token, '10000000002', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD', reference: 'r 6011 0009 9013 9424' } }, 'transaction.reference'],
    ['version 3 PAY', payPath(M1.id, token, '10000000003', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' }, card: { holder: { fullName: 'A 6011000990139424' } } }, 'card.holder.fullName'],
    ['PAY', `${order}/o-2/transaction/t-1`, modern.authorization, { ...pay, order: { ...pay.order, reference: '6011000990139424' } }, 'order.reference'],
    ['PAY', `${order}/o-3/transaction/t-1`, modern.authorization, { ...pay, order: { ...pay.order, description: 'for 6011000990139424' } }, 'order.description'],
    ['PAY', `${order}/o-4/transaction/t-1`, modern.authorization, { ...pay, billing: { address: { street: '6011-0009-9013-9424 Main St' } } }, 'billing.address.street'],
    ['CAPTURE', `${order}/o-1/transaction/t-2`, modern.authorization, { apiOperation: 'CAPTURE', transaction: { amount: '1.00', currency: 'USD', reference: '6011000990139424' } }, 'transaction.reference'],
    ['Create Token', tokenPath(M1.id), modern.authorization, { ...cardBody(), billing: { address: { street: '6011000990139424' } } }, 'billing.address.street'],
    ['Create Token', tokenPath(M1.id), modern.authorization, { ...cardBody(), customer: { firstName: '6011000990139424' } }, 'customer.firstName'],
    ['Create Session', `/api/rest/version/100/merchant/${M1.id}/session`, modern.authorization, { correlationId: '6011000990139424' }, 'correlationId'],
  ];
  for (const [what, url, authorization, payload, field] of cases) {
    const res = await app.inject({ method: url.endsWith('/session') || url.endsWith('/token') ? 'POST' : 'PUT', url, headers: { authorization }, payload });
    expectInvalid(t, res, { field, explanation: CARD }, `${what}: ${field}`);
  }
  const stored = await storeText(app);
  const timeline = (await app.inject({ method: 'GET', url: '/admin/api/events?limit=500', headers: { authorization: authFor('/admin') } })).body;
  for (const [where, text] of [['the events', stored], ['the timeline', timeline]] as const) {
    t.notMatch(text, /6011.?0009.?9013.?9424/, `${where}: not the number`);
  }
});

t.test('a telephone number in international notation is no card number, even when its digits pass Luhn', async (t) => {
  const app = await buildTestApp(t);
  // +86 and a mobile number: 13 digits passing Luhn.
  const digits = Array.from({ length: 10 }, (_, d) => `861380013800${d}`).find(luhn) as string;
  const phone = `+86 ${digits.slice(2)}`;
  const res = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: { ...cardBody(), customer: { phone, mobilePhone: phone } } });
  t.equal(res.statusCode, 201, `${phone}: ${res.body}`);
  // The same digits without the '+' in a field of free text: a card number.
  const refused = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: { ...cardBody(), customer: { taxRegistrationId: digits } } });
  expectInvalid(t, refused, { field: 'customer.taxRegistrationId', explanation: CARD });
});

t.test('NVP: the same rule on the decoded members, after the credentials, with the same exemptions', async (t) => {
  const app = await buildTestApp(t);
  const nvp = (fields: Record<string, string>) => app.inject({
    method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString(),
  });
  const card = { 'sourceOfFunds.type': 'CARD', 'sourceOfFunds.provided.card.number': '5123450000000008', 'sourceOfFunds.provided.card.expiry.month': '1', 'sourceOfFunds.provided.card.expiry.year': '39' };
  const tokenize = { apiOperation: 'TOKENIZE', ...NVP_CREDENTIALS, ...card };
  // A telephone number in international notation is exempt by its member's name (phone), as in REST.
  const digits = Array.from({ length: 10 }, (_, d) => `861380013800${d}`).find(luhn) as string;
  const phone = `+86 ${digits.slice(2)}`;
  const stored = await nvp({ ...tokenize, 'customer.phone': phone, 'customer.mobilePhone': phone });
  t.equal(stored.statusCode, 201, `${phone}: ${stored.body}`);
  expectInvalid(t, await nvp({ ...tokenize, 'customer.taxRegistrationId': digits }), { field: 'customer.taxRegistrationId', explanation: CARD }, 'the same digits in free text');
  // Credentials are checked first, as REST checks them before the body.
  const wrong = await nvp({ ...tokenize, apiPassword: 'x'.repeat(32), 'order.reference': '6011000990139424' });
  t.same([wrong.statusCode, Object.fromEntries(new URLSearchParams(wrong.body))['error.explanation']], [401, 'Invalid credentials.'], wrong.body);
  // A number in a member the order API accepts and ignores, deep in a dotted name.
  const deep = await nvp({ apiOperation: 'PAY', ...NVP_CREDENTIALS, 'order.id': 'o-1', 'transaction.id': '1', 'order.amount': '1.00', 'order.currency': 'USD', ...card, 'order.custom.note.text': 'see 6011 0009 9013 9424' });
  expectInvalid(t, deep, { field: 'order.custom.note.text', explanation: CARD }, 'PAY: order.custom.note.text');
  t.notMatch(await storeText(app), /6011.?0009.?9013.?9424/, 'not in the events');
});

t.test('a card number with other separators or other digits: refused in free text, kept nowhere; ordinary values written alike: taken', async (t) => {
  const app = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD });
  const token = await createToken(app);
  const order = `/api/rest/version/100/merchant/${M1.id}/order`;
  const modern = { authorization: tokenAuth(M1) };
  const pay = { apiOperation: 'PAY', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: { token } };
  const forms = [
    '4111.1111.1111.1111', '4111(1111)1111-1111', '4111/1111/1111/1111', '4111_1111_1111_1111', '４１１１１１１１１１１１１１１１',
    '٤١١١١١١١١١١١١١١١', '4111\u00a01111\u00a01111\u00a01111', '4111\u20131111\u20131111\u20131111', '４１１１．１１１１．１１１１．１１１１',
  ];
  const places: Array<[string, (value: string) => Promise<LightMyRequestResponse>]> = [
    ['billing.address.street', (value) => app.inject({ method: 'POST', url: tokenPath(M1.id), headers: modern, payload: { ...cardBody(), billing: { address: { street: `${value} Main St` } } } })],
    ['customer.firstName', (value) => app.inject({ method: 'POST', url: tokenPath(M1.id), headers: modern, payload: { ...cardBody(), customer: { firstName: value } } })],
    ['order.reference', (value) => app.inject({ method: 'PUT', url: `${order}/o-ref/transaction/t-1`, headers: modern, payload: { ...pay, order: { ...pay.order, reference: `ref ${value}` } } })],
  ];
  for (const [i, value] of forms.entries()) {
    const [field, send] = places[i % places.length]!;
    const res = await send(value);
    expectInvalid(t, res, { field, explanation: CARD }, `'${value}' in ${field}`);
    t.notOk(hidden(value).some((middle) => res.body.includes(middle)), `${field}: '${value}' not echoed`);
  }
  t.equal(await app.gateway.store.headPosition(), 1n, 'nothing recorded but the token');
  const journal = (await app.inject({ method: 'GET', url: '/admin/api/requests?limit=1000', headers: { authorization: authFor('/admin') } })).body;
  t.ok(journal.includes('411111xxxxxx1111'), 'the journal keeps the refused bodies, masked');
  // (JSON may spell a character as an escape: read as the character.)
  const kept = JSON.parse(journal) as unknown;
  for (const [where, text] of [['the events', await storeText(app)], ['the journal', JSON.stringify(kept, null, 0)]] as const) {
    const ascii = text.replace(/\p{Nd}/gu, (d) => digitsOf(d));
    t.notMatch(ascii, /4111.?1111.?1111.?1111/, `${where}: not the number`);
  }

  // The same characters in what merchants do send: dates, times, amounts, versions, addresses.
  const ordinary = ['2026.11.29', '2026-11-29T03:02:07.129Z', '192.168.100.209', '10.100.200.250.5', '1764385327.127', '123456789012.37', 'INV_2026_11_29_0000', '(555) 123-4567', '٢٠٢٦-١١-٢٩'];
  for (const [i, reference] of ordinary.entries()) {
    const res = await app.inject({ method: 'PUT', url: `${order}/o-${i}/transaction/t-1`, headers: modern, payload: { ...pay, order: { ...pay.order, reference } } });
    t.equal(res.statusCode, 201, `${reference}: ${res.body}`);
    t.equal((res.json() as { order: { reference: string } }).order.reference, reference, `${reference}: kept as sent`);
  }
});
