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
