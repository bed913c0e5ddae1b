// Create or Update Token answers on POST .../token/ (a trailing slash) as on .../token, as the
// gateway does for Mastercard's Magento module, which has created its tokens there since 2016
// (Gateway/Http/Vault/TransferFactoryCreateToken.php); the slash variant is not documented twice.
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';

const url = `/api/rest/version/100/merchant/${M1.id}/token/`;
const card = { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '05', year: '31' } } } } };

t.test('POST .../token/ creates a token as POST .../token does', async (t) => {
  const a = await buildTestApp(t);
  const res = await a.inject({ method: 'POST', url, headers: { authorization: tokenAuth(M1) }, payload: card });
  t.equal(res.statusCode, 201, res.body);
  t.match(res.json(), { result: 'SUCCESS', status: 'VALID', token: /^9[0-9]{15}$/, sourceOfFunds: { provided: { card: { expiry: '0531', number: '512345xxxxxx0008' } } } });
  const plain = await a.inject({ method: 'POST', url: url.slice(0, -1), headers: { authorization: tokenAuth(M1) }, payload: card });
  t.equal(plain.statusCode, 201, 'and without the slash');
  expectInvalid(t, await a.inject({ method: 'POST', url, headers: { authorization: tokenAuth(M1) }, payload: { sourceOfFunds: { type: 'CHEQUE' } } }), { field: 'sourceOfFunds.type' }, 'checked as on .../token');
  t.equal((await a.inject({ method: 'POST', url, payload: card })).statusCode, 401, 'authenticated as on .../token');
  const doc = (await a.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
  t.notOk('/api/rest/version/{version}/merchant/{merchantId}/token/' in doc.paths, 'documented once');
});

t.test('.../token/ with other methods, doubled or encoded slashes: the gateway\'s errors, never a 500 nor a token', async (t) => {
  const a = await buildTestApp(t);
  const headers = { authorization: tokenAuth(M1) };
  for (const method of ['GET', 'PUT', 'DELETE'] as const) {
    // The path of Retrieve, Tokenize and Delete Token with an empty token id.
    expectInvalid(t, await a.inject({ method, url, headers, ...(method === 'PUT' ? { payload: card } : {}) }), { field: 'tokenid' }, `${method} .../token/`);
  }
  for (const path of [`${url}/`, `${url.slice(0, -1)}%2F`, url.replace('/token/', '//token/')]) {
    const res = await a.inject({ method: 'POST', url: path, headers, payload: card });
    t.equal(res.statusCode, 404, `${path}: no such operation`);
    t.match(res.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST' } });
  }
  const wrong = await a.inject({ method: 'POST', url, headers: { authorization: tokenAuth({ id: M1.id, apiPassword: 'not-the-password-0123456789' }), 'content-type': 'application/json' }, payload: '{' });
  t.equal(wrong.statusCode, 401, 'a wrong password: 401 before the body is read');
  const other = await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}1/token/`, headers, payload: card });
  t.equal(other.statusCode, 401, 'a merchant id extending the credentials\' one');
  const listed = await a.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/token/`, headers });
  t.notOk(listed.body.includes('512345'), 'no token listed');
});
