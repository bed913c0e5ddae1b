// The OpenAPI document is generated from the route schemas and served with a reference page.
import t from 'tap';
import { buildTestApp, createToken, M1, payAuth, payPath } from '../helpers/app.js';

t.test('the OpenAPI document describes both operations, their bodies and their errors', async (t) => {
  const app = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  t.equal(res.statusCode, 200);
  const doc = res.json();
  t.match(doc.openapi, /^3\./);
  const pay = doc.paths['/api/rest/version/3/merchant/{merchantid}/token/{tokenid}/order/{orderid}/transaction/{transactionid}']?.put;
  const token = doc.paths['/api/rest/version/{version}/merchant/{merchantId}/token']?.post;
  t.ok(pay, 'pay is documented');
  t.ok(token, 'create token is documented');
  t.same(pay.parameters.map((p: { name: string }) => p.name).sort(), ['merchantid', 'orderid', 'tokenid', 'transactionid']);
  const payBody = pay.requestBody.content['application/json'].schema;
  t.same(payBody.required.sort(), ['apiOperation', 'transaction']);
  t.equal(payBody.properties.transaction.properties.amount.maxLength, 14, 'bounds come from the route schema');
  t.same(Object.keys(pay.responses).sort(), ['201', '400', '401', '404', '500', '503']);
  t.ok(pay.responses['201'].content['application/json'].schema.properties.response, 'the pay response is described');
  t.ok(token.responses['400'], 'error bodies are described');
  t.ok(doc.components.schemas.ErrorBody.properties.error.properties.validationType, 'the error body schema is a component');
  t.same(pay.security, [{ basicAuth: [] }]);
  t.notOk(doc.paths['/openapi.json'], 'the document does not describe itself');
  const tokenize = doc.paths['/api/rest/version/{version}/merchant/{merchantId}/token/{tokenid}']?.put;
  t.ok(tokenize, 'Tokenize (PUT .../token/{tokenid}) is documented');
  t.same(tokenize.parameters.map((p: { name: string }) => p.name).sort(), ['merchantId', 'tokenid', 'version']);
  // sourceOfFunds may come from the session the request names: no member is required by the schema.
  t.ok(tokenize.requestBody.content['application/json'].schema.properties.sourceOfFunds, 'the body of Create or Update Token');
  t.notOk(tokenize.requestBody.content['application/json'].schema.required, 'sourceOfFunds may come from a session');
  t.ok(tokenize.responses['201'].content['application/json'].schema.properties.token, 'the token answer is described');
});

t.test('the reference page is served from the package, and documenting changes no body', async (t) => {
  const app = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/documentation/' });
  t.equal(page.statusCode, 200);
  t.match(page.body, /swagger/i);
  const tokenId = await createToken(app);
  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, tokenId, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(paid.statusCode, 201);
  const keys = Object.keys(JSON.parse(paid.body));
  t.same(keys, [...keys].sort(), 'keys stay sorted with response schemas in place');
  t.match(paid.body, '"id":10000000001', 'the order id stays an exact JSON integer');
});
