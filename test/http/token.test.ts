// Create or Update Token with a system-generated token (POST version 100).
import t from 'tap';
import { basic, buildTestApp, cardBody, M1, M2, MERCHANTS, tokenAuth, tokenPath } from '../helpers/app.js';
import { assertSortedJson, eventsOfType, expectInvalid, luhn, orderId, pay, payBody, type App } from './http.fixture.js';

const SUPPLIED = MERCHANTS.merchants.find((m) => m.repository.tokenGeneration === 'MERCHANT_SUPPLIED')!;

const create = (app: App, payload: unknown, merchant: { id: string; apiPassword: string } = M1) =>
  app.inject({ method: 'POST', url: tokenPath(merchant.id), headers: { authorization: tokenAuth(merchant) }, payload: payload as Record<string, unknown> });

t.test('RANDOM repository: 201 with the captured response shape and a 16-digit token starting with 9 passing Luhn', async (t) => {
  const app = await buildTestApp(t);
  const res = await create(app, cardBody('5123450000000008', '1', '39'));
  t.equal(res.statusCode, 201, res.body);
  assertSortedJson(t, res);
  const body = res.json();
  t.equal(body.repositoryId, M1.repository.id, 'repositoryId');
  t.equal(body.result, 'SUCCESS', 'result');
  t.same(body.response, { gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' }, 'response.gatewayCode');
  t.equal(body.status, 'VALID', 'status');
  t.match(body.token, /^9\d{15}$/, 'token: 16 digits starting with 9');
  t.ok(luhn(body.token), 'token passes Luhn');
  t.equal(body.sourceOfFunds?.type, 'CARD', 'sourceOfFunds.type');
  const card = body.sourceOfFunds?.provided?.card;
  t.equal(card?.number, '512345xxxxxx0008', 'number masked 6.4');
  t.equal(card?.brand, 'MASTERCARD', 'brand');
  t.equal(card?.scheme, 'MASTERCARD', 'scheme');
  t.equal(card?.fundingMethod, 'CREDIT', 'fundingMethod');
  t.equal(card?.expiry, '0139', 'expiry MMYY');
  t.notMatch(res.body, /5123450000000008/, 'full number never returned');
  t.equal((await eventsOfType(app, 'TokenCreated')).length, 1, 'one token recorded');

  // The token is usable for a payment, and another creation gets another token.
  const paid = await pay(app, body.token, payBody());
  t.equal(paid.statusCode, 201, paid.body);
  t.equal(paid.json().result, 'SUCCESS');
  const second = await create(app, cardBody('5123450000000008', '1', '39'));
  t.not(second.json().token, body.token, 'each creation generates a new token');
});

t.test('brand, scheme, funding and masking of other test cards', async (t) => {
  const app = await buildTestApp(t);
  const cases: Array<[string, string, string, string, string]> = [
    ['4508750015741019', 'VISA', 'VISA', 'CREDIT', '450875xxxxxx1019'],
    ['345678901234564', 'AMEX', 'AMEX', 'CHARGE', '345678xxxxx4564'],
    ['5000000000000000005', 'MAESTRO', 'MAESTRO', 'DEBIT', '500000xxxxxxxxx0005'],
  ];
  for (const [number, brand, scheme, fundingMethod, masked] of cases) {
    const res = await create(app, cardBody(number, '12', '30'));
    t.equal(res.statusCode, 201, `${number}: ${res.body}`);
    t.same(res.json().sourceOfFunds?.provided?.card, { brand, expiry: '1230', fundingMethod, number: masked, scheme }, `${brand} card`);
  }
});

t.test('PRESERVE_6_4 repository: the token keeps the first 6 and last 4 digits of the card', async (t) => {
  const app = await buildTestApp(t);
  for (const number of ['5123450000000008', '4508750015741019', '345678901234564']) {
    const res = await create(app, cardBody(number, '1', '39'), M2);
    t.equal(res.statusCode, 201, `${number}: ${res.body}`);
    const body = res.json();
    t.equal(body.repositoryId, M2.repository.id, 'repositoryId');
    t.match(body.token, /^\d+$/, 'digits only');
    t.equal(body.token.length, number.length, 'same length as the card');
    t.equal(body.token.slice(0, 6), number.slice(0, 6), 'first 6 kept');
    t.equal(body.token.slice(-4), number.slice(-4), 'last 4 kept');
    t.not(body.token, number, 'not the card number itself');
    t.equal(body.sourceOfFunds?.provided?.card?.number, `${number.slice(0, 6)}${'x'.repeat(number.length - 10)}${number.slice(-4)}`, 'masked 6.4');
  }
});

t.test('billing street2 is merged into street and truncated at 100 characters', async (t) => {
  const app = await buildTestApp(t);
  const short = await create(app, { ...cardBody(), billing: { address: { street: '1 Main St', street2: 'Apt 4', city: 'Springfield', country: 'USA' } } });
  t.equal(short.statusCode, 201, short.body);
  const address = short.json().billing?.address;
  t.match(address?.street, /^1 Main St ?Apt 4$/, 'street and street2 concatenated');
  t.notOk(address && 'street2' in address, 'street2 not returned');
  t.equal(address?.city, 'Springfield', 'other members echoed');
  t.equal(address?.country, 'USA');

  const street = 'a'.repeat(70);
  const street2 = 'b'.repeat(70);
  const long = await create(app, { ...cardBody(), billing: { address: { street, street2 } } });
  t.equal(long.statusCode, 201, long.body);
  const merged: string = long.json().billing?.address?.street ?? '';
  t.equal(merged.length, 100, 'truncated at 100 characters');
  t.ok(merged.startsWith(street), 'begins with street');
  t.match(merged.slice(70), /^ ?b+$/, 'continues with street2');
  t.notOk('street2' in (long.json().billing?.address ?? {}), 'street2 not returned');
});

t.test('correlationId and nameOnCard are echoed', async (t) => {
  const app = await buildTestApp(t);
  const res = await create(app, { ...cardBody('5123450000000008', '1', '39', { nameOnCard: 'Jane Q Public' }), correlationId: 'corr-42 "x"' });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().correlationId, 'corr-42 "x"', 'correlationId unchanged');
  t.equal(res.json().sourceOfFunds?.provided?.card?.nameOnCard, 'Jane Q Public', 'nameOnCard');
  const plain = await create(app, cardBody());
  t.notOk('correlationId' in plain.json(), 'no correlationId when none sent');
});

t.test('a MERCHANT_SUPPLIED repository cannot generate tokens: 400, nothing stored', async (t) => {
  const app = await buildTestApp(t);
  const res = await app.inject({ method: 'POST', url: tokenPath(SUPPLIED.id), headers: { authorization: basic(`merchant.${SUPPLIED.id}`, SUPPLIED.apiPassword) }, payload: cardBody() });
  t.equal(res.statusCode, 400, res.body);
  assertSortedJson(t, res);
  t.equal(res.json().result, 'ERROR');
  t.equal(res.json().error?.cause, 'INVALID_REQUEST');
  t.type(res.json().error?.explanation, 'string');
  t.equal(await app.gateway.store.headPosition(), 0n, 'no token created');
});

t.test('an expired card is refused on its expiry', async (t) => {
  const app = await buildTestApp(t);
  const lastYear = String((new Date().getUTCFullYear() - 2001) % 100).padStart(2, '0');
  for (const [month, year] of [['1', '20'], ['12', lastYear]] as const) {
    expectInvalid(t, await create(app, cardBody('5123450000000008', month, year)),
      { field: /^sourceOfFunds\.provided\.card\.expiry/, validationType: 'INVALID' }, `expiry ${month}/${year}`);
  }
  t.equal(await app.gateway.store.headPosition(), 0n, 'no token created');
});

t.test('missing expiry, card number or sourceOfFunds.type is MISSING', async (t) => {
  const app = await buildTestApp(t);
  expectInvalid(t, await create(app, { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008' } } } }),
    { field: /^sourceOfFunds\.provided\.card\.expiry/, validationType: 'MISSING', explanation: 'Missing parameter' }, 'no expiry');
  expectInvalid(t, await create(app, { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1' } } } } }),
    { field: 'sourceOfFunds.provided.card.expiry.year', validationType: 'MISSING', explanation: 'Missing parameter' });
  expectInvalid(t, await create(app, { sourceOfFunds: { type: 'CARD', provided: { card: { expiry: { month: '1', year: '39' } } } } }),
    { field: 'sourceOfFunds.provided.card.number', validationType: 'MISSING', explanation: 'Missing parameter' });
  expectInvalid(t, await create(app, { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } }),
    { field: 'sourceOfFunds.type', validationType: 'MISSING', explanation: 'Missing parameter' });
  t.equal(await app.gateway.store.headPosition(), 0n, 'no token created');
});

t.test('a source of funds without its details is MISSING them', async (t) => {
  const app = await buildTestApp(t);
  for (const [type, group] of [['ACH', 'ach'], ['DIRECT_DEBIT_CANADA', 'directDebitCanada'], ['WALLET', 'wallet']]) {
    expectInvalid(t, await create(app, { sourceOfFunds: { type } }), { field: `sourceOfFunds.provided.${group}`, validationType: 'MISSING' }, String(type));
  }
  t.equal(await app.gateway.store.headPosition(), 0n, 'no token created');
});

t.test('tokens of one repository are not tokens of another (pay with M2 token via M2 works)', async (t) => {
  const app = await buildTestApp(t);
  const res = await create(app, cardBody('4508750015741019', '1', '39'), M2);
  const token = res.json().token as string;
  const paid = await pay(app, token, payBody(), { merchant: M2, order: orderId() });
  t.equal(paid.statusCode, 201, paid.body);
  t.equal(paid.json().card?.number, '450875xxxxxx1019');
  t.equal(paid.json().card?.type, 'VISA');
});
