// List fields and the field their errors name. The gateway names a list item `name[i]`, numbered
// from 0 (`interaction.tokens[0]`, `order.item[0].name`, `airline.itinerary.leg[0].<field>`), in
// REST's error.field as in NVP's field names. The only list the REST schemas describe is Initiate
// Checkout's interaction.tokens; the order API also accepts lists it ignores (order.item,
// airline...), where the value checks name items the same way.
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import t from 'tap';
import errors from '../../plugins/errors.js';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';
import { checkoutBody, initiate } from './hosted-checkout.fixture.js';

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
