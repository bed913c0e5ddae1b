// Retrieval over HTTP in the real gateway's shapes and authentication.
import t from 'tap';
import { buildTestApp, createToken, M1, M2, payAuth, payPath, tokenAuth } from '../helpers/app.js';

const retrieveUrl = (merchantId: string, token: string) => `/api/rest/version/100/merchant/${merchantId}/token/${token}`;

t.test('retrieve a token: masked card, usage after a payment', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app, M1, '5123450000000008', '1', '39');
  const first = await app.inject({ method: 'GET', url: retrieveUrl(M1.id, token), headers: { authorization: tokenAuth(M1) } });
  t.equal(first.statusCode, 200);
  const body = first.json();
  t.same(body.sourceOfFunds, { provided: { card: { brand: 'MASTERCARD', expiry: '0139', fundingMethod: 'CREDIT', number: '512345xxxxxx0008', scheme: 'MASTERCARD' } }, type: 'CARD' });
  t.equal(body.result, 'SUCCESS');
  t.equal(body.status, 'VALID');
  t.equal(body.repositoryId, 'REPO01');
  t.equal(body.token, token);
  t.notOk(body.usage.lastUsed, 'never used yet');
  t.notMatch(first.body, 'Sealed', 'no sealed value leaves the gateway');

  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  const after = (await app.inject({ method: 'GET', url: retrieveUrl(M1.id, token), headers: { authorization: tokenAuth(M1) } })).json();
  t.equal(after.usage.lastUsed, paid.json().timeOfRecord, 'lastUsed is the time of the payment');
});

t.test('a token is retrieved only from its own repository, with credentials', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app, M1);
  const elsewhere = await app.inject({ method: 'GET', url: retrieveUrl(M2.id, token), headers: { authorization: tokenAuth(M2) } });
  const unknown = await app.inject({ method: 'GET', url: retrieveUrl(M2.id, '9999999999999995'), headers: { authorization: tokenAuth(M2) } });
  t.equal(elsewhere.statusCode, 400);
  t.equal(elsewhere.json().error.field, 'tokenid');
  t.equal(elsewhere.body.replace(token, 'T'), unknown.body.replace('9999999999999995', 'T'), 'the same answer as for a token that does not exist');
  const generated = await app.inject({ method: 'GET', url: retrieveUrl(M1.id, 'generated'), headers: { authorization: tokenAuth(M1) } });
  t.equal(generated.statusCode, 400);
  t.equal(generated.json().error.field, 'tokenid');
  const anonymous = await app.inject({ method: 'GET', url: retrieveUrl(M1.id, token) });
  t.equal(anonymous.statusCode, 401);
  const otherMerchant = await app.inject({ method: 'GET', url: retrieveUrl(M1.id, token), headers: { authorization: tokenAuth(M2) } });
  t.equal(otherMerchant.statusCode, 401);
});
