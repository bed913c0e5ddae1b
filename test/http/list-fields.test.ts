// List fields and the field their errors name. The gateway names a list item `name[i]`, numbered
// from 0 (`interaction.tokens[0]`, `order.item[0].name`, `airline.itinerary.leg[0].<field>`), in
// REST's error.field as in NVP's field names. The only list the REST schemas describe is Initiate
// Checkout's interaction.tokens; the order API also accepts lists it ignores (order.item,
// airline...), where the value checks name items the same way. NVP's form writes the same lists
// `interaction.tokens[0]=...&interaction.tokens[1]=...`, numbered from 0 without a gap. A null
// item of a JSON list is refused on the item, in the lists the schemas describe (the schema) and
// in those of the open groups (plugins/request-values.ts).
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import t from 'tap';
import errors from '../../plugins/errors.js';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { expectInvalid, type App } from './http.fixture.js';
import { checkoutBody, initiate, orderIdOf, view } from './hosted-checkout.fixture.js';
import { ADMIN_PASSWORD, authFor, fill, NVP_CREDENTIALS, operations, withField, type Operation } from './request-values.fixture.js';

const CARD = /must not hold a card number/;

t.test('REST: an item of interaction.tokens is named interaction.tokens[i]; the list itself by its name', async (t) => {
  const a = await buildTestApp(t);
  const own = await createToken(a);
  const tokens = (list: unknown) => initiate(a, checkoutBody({}, { tokens: list }), 99);
  expectInvalid(t, await tokens([own, 'a b']), { field: 'interaction.tokens[1]', explanation: /^Value 'a b' is invalid\. Expected a token/ }, 'a pattern refused');
  expectInvalid(t, await tokens([{ token: own }]), { field: 'interaction.tokens[0]', explanation: 'Value is invalid. Expected a string' }, 'a group for an item');
  expectInvalid(t, await tokens([own, own, 'x'.repeat(41)]), { field: 'interaction.tokens[2]', explanation: /Length is 41 characters, but must be less than 41/ }, 'too long');
  expectInvalid(t, await tokens(Array.from({ length: 11 }, () => own)), { field: 'interaction.tokens', explanation: 'Value is invalid. The list has 11 items, but must have less than 11' }, 'too many');
  expectInvalid(t, await tokens([]), { field: 'interaction.tokens', explanation: 'Value is invalid. The list has 0 items, but must have at least 1' }, 'empty');
  t.equal((await tokens([own])).statusCode, 201, 'one token of the repository: accepted');
});

t.test('REST: the order API\'s lists it accepts and ignores name their items, nested ones too', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const pay = (extra: Record<string, unknown>) => a.inject({
    method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/list-order/transaction/1`, headers: { authorization: tokenAuth(M1) },
    payload: { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { token }, ...extra },
  });
  const item = (name: string) => ({ name, quantity: '1', unitPrice: '1.00' });
  expectInvalid(t, await pay({ order: { amount: '1.00', currency: 'USD', item: [item('Tea'), item('ref 6011000990139424')] } }), { field: 'order.item[1].name', explanation: CARD }, 'order.item[1].name');
  const legs = [{ departureAirport: 'LHR' }, { departureAirport: 'JFK', passenger: [{ lastName: 'Doe' }, { lastName: '4222222222222' }] }];
  expectInvalid(t, await pay({ airline: { itinerary: { leg: legs } } }), { field: 'airline.itinerary.leg[1].passenger[1].lastName', explanation: CARD }, 'a list inside a list item');
  t.equal(await a.gateway.store.headPosition(), 1n, 'nothing recorded but the token');
});

/** A body the operation carries out (recorded, were nothing refused), where the test has one. */
function validBody(op: Operation, token: string): Record<string, unknown> {
  if (op.path.endsWith('/transaction/{transactionId}') && op.method === 'PUT') return { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { token } };
  if (op.selects) return { ...checkoutBody(), apiOperation: op.selects[0] };
  return {};
}

t.test('REST: a null list item is refused, named name[i]: in every list the OpenAPI document describes, and a list in every open group', async (t) => {
  const a = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD, testControl: true });
  const token = await createToken(a);
  const before = await a.gateway.store.headPosition();
  const seen: string[] = [];
  for (const op of (await operations(a)).filter((o) => o.nvp === undefined)) {
    // Version 99: interaction.tokens is of versions 50 to 99.
    const send = (payload: Record<string, unknown>) => a.inject({ method: op.method as 'PUT', url: fill(op.path, { version: '99', tokenid: token }), headers: { authorization: authFor(op.path) }, payload });
    const name = `${op.method} ${op.path}${op.selects ? ` ${op.selects[0]}` : ''}`;
    for (const list of op.lists) {
      const body = withField(withField(validBody(op, token), list, []), `${list}[0]`, null);
      expectInvalid(t, await send(body), { field: `${list}[0]`, explanation: "Value 'null' is invalid. Expected a string" }, `${name}: ${list}[0] null`);
      seen.push(list);
    }
    // A list whose items take any value (Update Session's order.item): its null item refused as an open group's list's.
    for (const list of op.anyItemLists) {
      const body = withField(withField(validBody(op, token), list, []), `${list}[0]`, null);
      expectInvalid(t, await send(body), { field: `${list}[0]`, explanation: "Value 'null' is invalid. A list item must not be null" }, `${name}: ${list}[0] null`);
      seen.push(list);
    }
    for (const group of op.openGroups) {
      // A list the schema does not describe, in a group that takes members it does not list; and one inside an item of it.
      const list = group === '' ? 'extra' : `${group}.extra`;
      for (const [value, field] of [[['x', null], `${list}[1]`], [[{ inner: ['x', [null]] }], `${list}[0].inner[1][0]`]] as const) {
        const res = await send(withField(validBody(op, token), list, value));
        expectInvalid(t, res, { field, explanation: "Value 'null' is invalid. A list item must not be null" }, `${name}: ${field} null`);
      }
      seen.push(list);
    }
  }
  t.ok(seen.includes('interaction.tokens') && seen.includes('order.extra') && seen.includes('sourceOfFunds.provided.card.extra'), `lists: ${seen.join(', ')}`);
  t.equal(await a.gateway.store.headPosition(), before, 'nothing recorded');
  // The same lists without a null: taken.
  const paid = await a.inject({
    method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/list-null/transaction/1`, headers: { authorization: tokenAuth(M1) },
    payload: { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD', item: [{ name: 'Tea' }], extra: ['x', [1]] }, airline: { passenger: [{ lastName: 'Doe' }] }, sourceOfFunds: { token } },
  });
  t.equal(paid.statusCode, 201, `lists without null: paid (${paid.body.slice(0, 200)})`);
  expectInvalid(t, await a.inject({
    method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/list-null/transaction/2`, headers: { authorization: tokenAuth(M1) },
    payload: { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD', item: [{ name: 'Tea' }, null] }, sourceOfFunds: { token } },
  }), { field: 'order.item[1]', explanation: "Value 'null' is invalid. A list item must not be null" }, 'order.item[1] null');
});

t.test('the error handler names items inside items a[0].b[1].c, and a group\'s member named with digits g.0', async (t) => {
  // A schema of lists of groups of lists, on Fastify with the gateway's validator options (app.ts).
  const app = Fastify({ ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true } } });
  t.teardown(() => app.close());
  await app.register(errors);
  const C = Type.Object({ c: Type.String({ maxLength: 3 }) }, { additionalProperties: false });
  const body = Type.Object({
    a: Type.Optional(Type.Array(Type.Object({ b: Type.Array(C) }, { additionalProperties: false }))),
    g: Type.Optional(Type.Record(Type.String(), Type.Integer())),
  }, { additionalProperties: false });
  app.post('/lists', { schema: { body } }, async () => ({ result: 'SUCCESS' }));
  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/lists', payload: payload as Record<string, unknown> });
  const b = (...items: unknown[]) => ({ a: [{ b: [{ c: 'ok' }] }, { b: items }] });
  expectInvalid(t, await post(b({ c: 'ok' }, { c: 'long' })), { field: 'a[1].b[1].c', explanation: /Length is 4 characters/ }, 'a value');
  expectInvalid(t, await post(b({ c: 'ok' }, {})), { field: 'a[1].b[1].c', validationType: 'MISSING' }, 'a member missing');
  expectInvalid(t, await post(b({ c: 'ok', d: 1 })), { field: 'a[1].b[0].d', validationType: 'UNSUPPORTED' }, 'a member not expected');
  expectInvalid(t, await post(b('x')), { field: 'a[1].b[0]', explanation: 'Value is invalid. Expected a JSON object' }, 'an item of the wrong type');
  expectInvalid(t, await post({ g: { 0: 'x' } }), { field: 'g.0' }, 'a member named 0 of a group is no list item');
});

/** An NVP request of `fields` besides the credentials, on version 99 (the last to take interaction.tokens). */
const nvp = (a: App, fields: Record<string, string>) => a.inject({
  method: 'POST', url: '/api/nvp/version/99', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams({ ...NVP_CREDENTIALS, ...fields }).toString(),
});
const checkout = () => ({
  apiOperation: 'INITIATE_CHECKOUT', 'interaction.operation': 'PURCHASE', 'interaction.returnUrl': 'https://shop.example/return',
  'interaction.merchant.name': 'Demo Shop', 'order.id': orderIdOf(), 'order.amount': '12.50', 'order.currency': 'USD',
});

t.test('NVP: interaction.tokens[0], [1], ... are the list REST takes, in index order', async (t) => {
  const a = await buildTestApp(t);
  const mastercard = await createToken(a);
  const visa = await createToken(a, M1, '4508750015741019', '7', '41');
  // Sent out of order: the items are the indexes' order.
  const res = await nvp(a, { 'interaction.tokens[1]': visa, ...checkout(), 'interaction.tokens[0]': mastercard });
  t.equal(res.statusCode, 201, res.body);
  const session = new URLSearchParams(res.body).get('session.id') ?? '';
  const shown = (await view(a, session)).json() as { storedCards: Array<{ token: string }> };
  t.same(shown.storedCards.map((card) => card.token), [mastercard, visa], 'the page offers both, in index order');
  const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`interaction.tokens[${i}]`, mastercard]));
  t.equal((await nvp(a, { ...checkout(), ...ten })).statusCode, 201, 'ten items, [0] to [9]');
  expectInvalid(t, await nvp(a, { ...checkout(), ...ten, 'interaction.tokens[10]': mastercard }), { field: 'interaction.tokens', explanation: /has 11 items, but must have less than 11/ }, 'eleven');
});

t.test('NVP: bad lists are refused on the field named as the gateway names it, never a 500, nothing recorded', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const before = await a.gateway.store.headPosition();
  const tokens = (items: Record<string, string>) => nvp(a, { ...checkout(), ...items });
  const gap = /^Value is invalid\. List items are numbered from 0 without a gap: 'interaction\.tokens\[\d+\]' is missing$/;
  const notIndex = /is no list index: items are numbered 0, 1, 2/;
  const cases: Array<[string, Record<string, string>, Parameters<typeof expectInvalid>[2]]> = [
    ['an item refused by the schema', { 'interaction.tokens[0]': token, 'interaction.tokens[1]': 'a b' }, { field: 'interaction.tokens[1]', explanation: /^Value 'a b' is invalid/ }],
    ['a gap', { 'interaction.tokens[0]': token, 'interaction.tokens[2]': token }, { field: 'interaction.tokens[2]', explanation: /'interaction\.tokens\[1\]' is missing/ }],
    ['no [0]', { 'interaction.tokens[1]': token }, { field: 'interaction.tokens[1]', explanation: gap }],
    ['a huge index (no list of that length is made)', { 'interaction.tokens[999999999]': token }, { field: 'interaction.tokens[999999999]', explanation: gap }],
    ['an index of 10 digits', { 'interaction.tokens[1000000000]': token }, { field: 'interaction.tokens[1000000000]', explanation: notIndex }],
    // (More than 19 digits could hold a card number: masked in the field named.)
    ['an index of 400 digits', { [`interaction.tokens[${'9'.repeat(400)}]`]: token }, { field: /^interaction\.tokens\[[0-9x]{400}\]$/, explanation: notIndex }],
    ['a leading zero', { 'interaction.tokens[0]': token, 'interaction.tokens[01]': token }, { field: 'interaction.tokens[01]', explanation: notIndex }],
    ['a negative index', { 'interaction.tokens[-1]': token }, { field: 'interaction.tokens[-1]', explanation: notIndex }],
    ['no index', { 'interaction.tokens[]': token }, { field: 'interaction.tokens[]', explanation: notIndex }],
    ['a name for an index', { 'interaction.tokens[x]': token }, { field: 'interaction.tokens[x]', explanation: notIndex }],
    ['an unclosed bracket', { 'interaction.tokens[0': token }, { field: 'interaction.tokens[0', validationType: 'UNSUPPORTED' }],
    ['an index without a name', { 'interaction.[0]': token }, { field: 'interaction.[0]', validationType: 'UNSUPPORTED' }],
    ['a list and a value', { 'interaction.tokens': token, 'interaction.tokens[0]': token }, { field: 'interaction.tokens', explanation: "Value is invalid. 'interaction.tokens' is a list of items: it has no value of its own" }],
    ['a list and a group', { 'interaction.tokens.first': token, 'interaction.tokens[0]': token }, { field: 'interaction.tokens', explanation: "Value is invalid. 'interaction.tokens' is both a group of fields and a list of items" }],
    ['an item and a group', { 'interaction.tokens[0]': token, 'interaction.tokens[0].id': token }, { field: 'interaction.tokens[0]', explanation: "Value is invalid. 'interaction.tokens[0]' is a group of fields: it has no value of its own" }],
    ['an item of a group', { 'interaction.tokens[0].id': token }, { field: 'interaction.tokens[0]', explanation: 'Value is invalid. Expected a string' }],
  ];
  for (const [what, items, expected] of cases) expectInvalid(t, await tokens(items), expected, what);
  t.equal(await a.gateway.store.headPosition(), before, 'nothing recorded');
});

t.test('NVP: the order API\'s lists (order.item[i], airline...leg[i]) are taken as REST takes them, their items named so', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const pay = (order: string, fields: Record<string, string>) => nvp(a, {
    apiOperation: 'PAY', 'order.id': order, 'transaction.id': '1', 'order.amount': '1.00', 'order.currency': 'USD', 'sourceOfFunds.token': token, ...fields,
  });
  const items = { 'order.item[0].name': 'Tea', 'order.item[0].quantity': '1', 'order.item[1].name': 'Cake', 'airline.itinerary.leg[0].passenger[0].lastName': 'Doe' };
  const paid = await pay('nvp-items-1', items);
  t.equal(paid.statusCode, 201, paid.body);
  expectInvalid(t, await pay('nvp-items-2', { ...items, 'order.item[1].name': 'ref 6011000990139424' }), { field: 'order.item[1].name', explanation: CARD }, 'a card number in an item');
  expectInvalid(t, await pay('nvp-items-3', { ...items, 'airline.itinerary.leg[0].passenger[1].lastName': '4222222222222' }), { field: 'airline.itinerary.leg[0].passenger[1].lastName', explanation: CARD }, 'in a list inside an item');
  expectInvalid(t, await pay('nvp-items-4', { ...items, 'order.item[3].name': 'Jam' }), { field: 'order.item[3]', explanation: /'order\.item\[2\]' is missing/ }, 'a gap');
});
