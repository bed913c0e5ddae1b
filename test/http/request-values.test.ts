// Values no schema can refuse: a body nested thousands deep (it overflowed the stack while the
// request was fingerprinted: a 500), and a NUL character in a parameter or a body string (a 500
// on PostgreSQL: request-values-postgres.test.ts). Each is a 400 in the gateway's shape naming
// the field, and nothing is recorded. In NVP too, where dotted names make the nesting and the
// fields that are REST's path parameters are ids: its answers are the same errors, as pairs.
import t from 'tap';
import { buildTestApp, cardBody, createToken, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';
import { ADMIN_PASSWORD, expectNulRefusedEverywhere, fill, NVP_CREDENTIALS, OPEN_MEMBERS, operations, requestOf, restTwin, withField } from './request-values.fixture.js';

const orderPath = (order: string, transaction = '1') => `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${transaction}`;
const nested = (depth: number, open: string, close: string, inner = '"x"') => `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
const json = { authorization: tokenAuth(M1), 'content-type': 'application/json' };

t.test('a body nested thousands of levels deep is a 400 naming the member, never a 500', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const session = await app.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/session`, headers: { authorization: tokenAuth(M1) } });
  const before = await app.gateway.store.headPosition();
  // The field named is the member holding the nest (the first the schema does not list).
  const deep = {
    '5,000 arrays': nested(5_000, '[', ']'),
    '30,000 arrays': nested(30_000, '[', ']'),
    '5,000 objects': nested(5_000, '{"a":', '}', '1'),
    '5,000 arrays and objects': nested(2_500, '[{"b":', '}]', '1'),
  };
  for (const [what, value] of Object.entries(deep)) {
    const order = `deep-${what.replace(/\W/g, '')}`;
    const res = await app.inject({
      method: 'PUT', url: orderPath(order), headers: json,
      payload: `{"apiOperation":"PAY","order":{"amount":"1.00","currency":"USD","description":${value}},"sourceOfFunds":{"token":"${token}"}}`,
    });
    expectInvalid(t, res, { field: 'order.description', explanation: /nest more than 32 levels/ }, `order API, ${what}`);
  }
  // Deep inside members no schema lists: named by the outermost of them.
  const inner = await app.inject({
    method: 'PUT', url: orderPath('deep-inner'), headers: json,
    payload: `{"apiOperation":"PAY","order":{"amount":"1.00","currency":"USD","item":[{"detail":${nested(100, '[', ']')}}]},"sourceOfFunds":{"token":"${token}"}}`,
  });
  expectInvalid(t, inner, { field: 'order.item' }, 'nested inside an array item');
  // A member whose schema takes any value (Update Session's order.amount, a string or a number).
  const update = await app.inject({
    method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/session/${String(session.json().session.id)}`, headers: json,
    payload: `{"order":{"amount":${deep['5,000 objects']},"currency":"USD"}}`,
  });
    expectInvalid(t, update, { field: 'order.amount' }, 'Update Session, order.amount');
  // Where the other operations' schemas refuse the member (a string wanted, a member not listed),
  // they name it, without looking inside.
  const reference = `"order":{"reference":${nested(5_000, '[', ']')}}`;
  const others = [
    ['PUT', payPath(M1.id, token, '10000000001', '1'), payAuth(M1), `{"apiOperation":"PAY","transaction":{"amount":"1.00","currency":"USD"},${reference}}`, 'order.reference', 'INVALID'],
    ['POST', tokenPath(M1.id), tokenAuth(M1), `{"sourceOfFunds":{"type":"CARD","provided":{"card":{"number":"5123450000000008","expiry":{"month":"1","year":"39"}}}},${reference}}`, 'order', 'UNSUPPORTED'],
    ['POST', `/api/rest/version/100/merchant/${M1.id}/session`, tokenAuth(M1), `{${reference}}`, 'order', 'UNSUPPORTED'],
  ] as const;
  for (const [method, url, authorization, payload, field, validationType] of others) {
    const res = await app.inject({ method, url, headers: { authorization, 'content-type': 'application/json' }, payload });
    expectInvalid(t, res, { field, validationType }, `${method} ${url}`);
  }
  t.equal(await app.gateway.store.headPosition(), before, 'nothing recorded');
});

t.test('32 levels are accepted, 33 are refused', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  // The body is level 1, order level 2, order.description's first array level 3.
  const body = (arrays: number) => `{"apiOperation":"PAY","order":{"amount":"1.00","currency":"USD","description":${nested(arrays, '[', ']')}},"sourceOfFunds":{"token":"${token}"}}`;
  const accepted = await app.inject({ method: 'PUT', url: orderPath('levels-32'), headers: json, payload: body(30) });
  t.equal(accepted.statusCode, 201, `32 levels: paid (${accepted.body.slice(0, 200)})`);
  const refused = await app.inject({ method: 'PUT', url: orderPath('levels-33'), headers: json, payload: body(31) });
  expectInvalid(t, refused, { field: 'order.description', explanation: 'Value is invalid. Objects and arrays nest more than 32 levels deep (the gateway accepts at most 32)' });
});

t.test('a NUL in any path or query parameter of any operation, or a body id naming a stream: a 400 naming it', async (t) => {
  const app = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD, testControl: true });
  await createToken(app);
  const cases = await expectNulRefusedEverywhere(t, app);
  t.ok(cases > 100, `${cases} parameters and fields`);
  // referenceOrderId names the order whose card is stored.
  const res = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: { ...cardBody(), referenceOrderId: 'o\u00001' } });
  expectInvalid(t, res, { field: 'referenceOrderId', explanation: /NUL/ });
  // Free text takes any character, a NUL too.
  const named = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody('5123450000000008', '1', '39', { nameOnCard: 'A\u0000B' }) });
  t.equal(named.statusCode, 201, named.body);
});

/** An NVP request: the credentials, then `fields`. */
const nvp = (app: Awaited<ReturnType<typeof buildTestApp>>, fields: Record<string, string>) => app.inject({
  method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams({ ...NVP_CREDENTIALS, ...fields }).toString(),
});
const dotted = (levels: number) => '.a'.repeat(levels);

t.test('NVP: dotted names nesting past 32 levels are refused as REST refuses the same body; 32 levels are accepted', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const pay = { apiOperation: 'PAY', 'order.amount': '1.00', 'order.currency': 'USD', 'sourceOfFunds.token': token };
  const session = `/api/rest/version/100/merchant/${M1.id}/session`;
  // The same body sent in NVP (its fields dotted, besides the path's as fields) and in REST (JSON):
  // the same 400, naming the same member.
  const cases: Array<[string, 'PUT' | 'POST', string, Record<string, string>, Record<string, string>]> = [
    ['PAY, order.description', 'PUT', orderPath('nvp-deep-1'), { 'order.id': 'nvp-deep-1', 'transaction.id': '1' }, { ...pay, [`order.description${dotted(40)}`]: 'x' }],
    ['PAY, a member no schema lists', 'PUT', orderPath('nvp-deep-2'), { 'order.id': 'nvp-deep-2', 'transaction.id': '1' }, { ...pay, [`airline${dotted(40)}`]: 'x' }],
    ['UPDATE_SESSION, order.amount', 'PUT', `${session}/SESSION0001`, { apiOperation: 'UPDATE_SESSION', 'session.id': 'SESSION0001' }, { [`order.amount${dotted(40)}`]: '1' }],
    ['CREATE_SESSION, a member not listed', 'POST', session, { apiOperation: 'CREATE_SESSION' }, { [`session${dotted(40)}`]: 'x' }],
  ];
  const before = await app.gateway.store.headPosition();
  for (const [what, method, url, nvpOnly, body] of cases) {
    const payload = Object.entries(body).reduce((b, [name, value]) => withField(b, name, value), {});
    const rest = await app.inject({ method, url, headers: json, payload });
    t.equal(rest.statusCode, 400, `${what}: REST ${rest.body}`);
    const { error } = rest.json() as { error: { field: string; validationType: 'INVALID' | 'UNSUPPORTED'; explanation: string } };
    expectInvalid(t, await nvp(app, { ...nvpOnly, ...body }), error, `${what}: NVP as REST (${error.field})`);
  }
  t.equal(await app.gateway.store.headPosition(), before, 'nothing recorded');
  const levels = (extra: number, order: string) => nvp(app, { ...pay, 'order.id': order, 'transaction.id': '1', [`order.description${dotted(extra)}`]: 'x' });
  const accepted = await levels(30, 'nvp-levels-32');
  t.equal(accepted.statusCode, 201, `32 levels: paid (${accepted.body.slice(0, 200)})`);
  expectInvalid(t, await levels(31, 'nvp-levels-33'), { field: 'order.description', explanation: /nest more than 32 levels/ }, '33 levels');
});

t.test('NVP: every field of every apiOperation, list items too, nested 40 levels deep is answered as REST answers the same body', async (t) => {
  const app = await buildTestApp(t);
  let cases = 0;
  let tooDeep = 0;
  const items: string[] = [];
  for (const op of await operations(app)) {
    if (!op.nvp) continue;
    // List items too (`interaction.tokens[0]`, `order.item[0].name`, `airline.passenger[1].lastName`):
    // NVP's `name[i]` are the items of REST's lists.
    for (const field of [...op.bodyStrings, ...(op.openBody ? OPEN_MEMBERS : [])]) {
      const rest = await app.inject(restTwin({ ...op, nvp: op.nvp }, `${field}${dotted(40)}`, 'x'));
      t.equal(rest.statusCode, 400, `REST ${op.nvp.apiOperation} ${field}: ${rest.body}`);
      const { error } = rest.json() as { error: { field: string; validationType: 'INVALID'; explanation: string } };
      const res = await app.inject(requestOf(op, fill(op.path), `${field}${dotted(40)}`, 'x'));
      expectInvalid(t, res, error, `${op.nvp.apiOperation}: ${field}${dotted(2)}...: ${error.field} ${error.explanation}`);
      if (/nest more than 32/.test(error.explanation)) tooDeep++;
      if (field.includes('[')) items.push(`${op.nvp.apiOperation} ${field}: ${error.field}`);
      cases++;
    }
  }
  t.ok(cases > 100, `${cases} fields`);
  t.ok(items.some((item) => item.startsWith('INITIATE_CHECKOUT interaction.tokens[0]: interaction.tokens[0]')), `a list of the schemas: ${items.join('; ')}`);
  t.ok(items.some((item) => item.startsWith('PAY airline.passenger[1].lastName')), 'a list the order API ignores, past its first item');
  t.ok(tooDeep >= 6, `${tooDeep} refused as too deep (the open members of the transactions)`);
  t.equal(await app.gateway.store.headPosition(), 0n, 'nothing recorded');
});
