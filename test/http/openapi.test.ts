// The OpenAPI document is generated from the route schemas and served with a reference page:
// the gateway's operations first, the admin routes last in their own tag, a description of what
// tokengate serves, no placeholder rendered as an HTML tag, and examples for every operation,
// valid against their schemas and answered as shown when sent (plugins/openapi-document.ts).
import { Ajv } from 'ajv';
import currencyCodes from 'currency-codes';
import t from 'tap';
import { buildApp } from '../../app.js';
import { DEMO_MERCHANTS_FILE } from '../../config.js';
import { loadMerchants } from '../../merchants.js';
import { basic, buildTestApp, createToken, M1, payAuth, payPath } from '../helpers/app.js';

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

type Json = Record<string, any>;
interface Example { summary: string; value: any }

async function documentOf(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, { adminPassword: 'openapi-test-admin-password' });
  return (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Json;
}

/** Every operation of the document: `METHOD /path`, its tags and the operation object, in document order. */
const operationsOf = (doc: Json) => Object.entries(doc.paths as Record<string, Json>)
  .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation: operation as Json })));

t.test('gateway operations first, in the tags\' order; the admin routes last, in their own tag', async (t) => {
  const doc = await documentOf(t);
  const tags = (doc.tags as Array<{ name: string }>).map((tag) => tag.name);
  t.same(tags, ['token', 'pay', 'order', 'session', 'gateway', 'nvp', 'admin']);
  const ranks = operationsOf(doc).map(({ operation }) => tags.indexOf(operation.tags?.[0]));
  t.notOk(ranks.includes(-1), 'every operation has one of the tags');
  t.same(ranks, [...ranks].sort((a, b) => a - b), 'operations in the order of their tags');
  const admin = operationsOf(doc).filter(({ key }) => / \/(admin|metrics)/.test(key));
  t.ok(admin.length >= 10, 'the admin routes and /metrics are documented');
  for (const { key, operation } of admin) {
    t.same(operation.tags, ['admin'], `${key}: tag admin`);
    t.same(operation.security, [{ adminAuth: [] }], `${key}: the admin credentials`);
    t.ok(operation.summary, `${key}: a summary`);
  }
  t.match(operationsOf(doc)[0]?.key, /^POST \/api\/rest\/version\/\{version\}\/merchant\/\{merchantId\}\/token$/, 'Create or Update Token first');
  const nvp = operationsOf(doc).filter(({ key }) => key.includes('/api/nvp/'));
  t.same(nvp.map(({ key }) => key), ['POST /api/nvp/version/{version}', 'GET /api/nvp/version/{version}/information'], 'the NVP routes (POST information: the same, not listed twice)');
  for (const { key, operation } of nvp) t.same(operation.tags, ['nvp'], `${key}: tag nvp`);
});

t.test('a current description; no placeholder that markdown would take for an HTML tag', async (t) => {
  const doc = await documentOf(t);
  const description = doc.info.description as string;
  for (const operation of ['Create or Update Token', 'Tokenize', 'Retrieve Token', 'Delete Token', 'Pay with token', 'PAY', 'AUTHORIZE', 'CAPTURE', 'REFUND', 'VOID', 'VERIFY', 'Retrieve Order', 'Retrieve Transaction', 'Create', 'Update', 'Retrieve Session', 'Check Gateway', 'ADMIN_PASSWORD']) {
    t.match(description, operation, `the description names ${operation}`);
  }
  t.notMatch(description, /version 3 pay and version 100 create token/i);
  t.match(description, '**NVP**', 'the description names the NVP protocol');
  const current = [description, ...(doc.tags as Array<{ description: string }>).map((tag) => tag.description)];
  for (const text of current) t.notMatch(text, /\b50\b/, `no version range of 50-100 left: ${text.slice(0, 60)}`);
  t.match(description, 'versions 1-100 but the deactivated 2, 5, 6, 22, 25', 'the versions served (docs/operations.md, "Versions")');
  t.match(doc.tags.find((tag: { name: string }) => tag.name === 'session').description, 'versions 18-100 but the deactivated 22, 25', 'the sessions from version 18');
  const texts: string[] = [];
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'description' || key === 'summary') && typeof value === 'string') texts.push(value);
        else if (key !== 'examples') collect(value);
      }
    }
  };
  collect(doc);
  t.ok(texts.some((text) => text.includes('`merchant.<merchantId>`')), 'merchant.<merchantId> as code');
  const bare = texts.filter((text) => /<\w+>/.test(text.replace(/`[^`]*`/g, '')));
  t.same(bare, [], 'no <placeholder> outside code');
});

/** The schema with the document's $refs put in place (ErrorBody). */
function resolved(schema: unknown, doc: Json): unknown {
  if (Array.isArray(schema)) return schema.map((item) => resolved(item, doc));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as Json).$ref;
  if (typeof ref === 'string') return resolved(doc.components.schemas[ref.replace('#/components/schemas/', '')], doc);
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, resolved(value, doc)]));
}

const FORM = 'application/x-www-form-urlencoded';

/** The one media type of a body or an answer: JSON, or NVP's form. */
const contentOf = (holder: Json | undefined): [string, Json] | [] => (holder?.content ? Object.entries(holder.content as Record<string, Json>)[0]! : []);

/** A form example as its fields: an answer is the form text as sent, a request the fields themselves. */
const fieldsOf = (value: unknown): Record<string, string> => (typeof value === 'string' ? Object.fromEntries(new URLSearchParams(value)) : value as Record<string, string>);

t.test('every gateway operation has examples of its body and of every answer, valid against its schemas', async (t) => {
  const doc = await documentOf(t);
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const currencies = new Set(currencyCodes.codes());
  const check = (where: string, [type, content]: [string, Json] | []) => {
    t.ok(type === 'application/json' || type === FORM, `${where}: JSON or a form (${type})`);
    const examples = content?.examples as Record<string, Example> | undefined;
    t.ok(examples && Object.keys(examples).length > 0, `${where}: examples`);
    const validate = ajv.compile(resolved(content?.schema, doc) as object);
    for (const [name, example] of Object.entries(examples ?? {})) {
      t.ok(example.summary, `${where} ${name}: a summary`);
      const value = type === FORM ? fieldsOf(example.value) : example.value;
      if (type === FORM) t.ok(Object.values(value).every((v) => typeof v === 'string'), `${where} ${name}: a form of fields`);
      t.ok(validate(value), `${where} ${name}: valid against the schema ${JSON.stringify(validate.errors ?? [])}`);
      for (const [, currency] of JSON.stringify(value).matchAll(/"(?:[\w.[\]]*\.)?currency":"([^"]*)"/g)) t.ok(currencies.has(currency!), `${where} ${name}: currency ${currency} is ISO 4217`);
    }
  };
  for (const { key, operation } of operationsOf(doc).filter(({ operation }) => operation.tags?.[0] !== 'admin')) {
    if (operation.requestBody) check(`${key} body`, contentOf(operation.requestBody));
    for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) check(`${key} ${status}`, contentOf(response));
  }
});

t.test('the examples are what tokengate answers: each request sent gets the answer shown', async (t) => {
  const app = await buildApp({ eventStore: { kind: 'memory' }, merchants: loadMerchants(DEMO_MERCHANTS_FILE), limits: { authFailureLimit: 1_000_000 } });
  t.teardown(() => app.close());
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Json;
  const op = (key: string) => { const [method, path] = key.split(' '); return doc.paths[path!][method!.toLowerCase()] as Json; };
  const bodies = (key: string) => op(key).requestBody.content['application/json'].examples as Record<string, Example>;
  const answers = (key: string, status: string) => op(key).responses[status].content['application/json'].examples as Record<string, Example>;
  const merchant = basic('merchant.TESTMERCHANT01', 'demo-api-password-0123456789abcdef');
  const send = async (method: 'POST' | 'PUT', url: string, authorization: string, payload: unknown) => {
    const res = await app.inject({ method, url, headers: { authorization }, payload: payload as object });
    return { status: res.statusCode, body: res.json() as Json };
  };
  const same = (got: Json, shown: Json, what: string) => t.match({ result: got.result, gatewayCode: got.response?.gatewayCode, status: got.order?.status }, { result: shown.result, gatewayCode: shown.response?.gatewayCode, status: shown.order?.status }, what);

  const TOKEN = 'POST /api/rest/version/{version}/merchant/{merchantId}/token';
  const created = await send('POST', '/api/rest/version/100/merchant/TESTMERCHANT01/token', merchant, bodies(TOKEN).card!.value);
  t.equal(created.status, 201, 'Create or Update Token: 201');
  same(created.body, answers(TOKEN, '201').stored!.value, 'Create or Update Token: as shown');
  const token = created.body.token as string;

  const PAY = 'PUT /api/rest/version/3/merchant/{merchantid}/token/{tokenid}/order/{orderid}/transaction/{transactionid}';
  const paid = await send('PUT', payPath('TESTMERCHANT01', token, '10000000001', '1'), basic('', 'demo-api-password-0123456789abcdef'), bodies(PAY).pay!.value);
  t.equal(paid.status, 201, 'Pay with token: 201');
  same(paid.body, answers(PAY, '201').approved!.value, 'Pay with token: approved, as shown');

  const TOKENIZE = 'PUT /api/rest/version/{version}/merchant/{merchantId}/token/{tokenid}';
  const tokenized = await send('PUT', '/api/rest/version/100/merchant/TESTMERCHANT03/token/CUSTOMER0001', basic('merchant.TESTMERCHANT03', 'demo-api-password-merchant-supplied-03'), bodies(TOKENIZE).card!.value);
  t.equal(tokenized.status, 201, 'Tokenize: 201');
  t.equal(tokenized.body.token, answers(TOKENIZE, '201').stored!.value.token, 'Tokenize: the token id shown');

  const session = await send('POST', '/api/rest/version/100/merchant/TESTMERCHANT01/session', merchant, bodies('POST /api/rest/version/{version}/merchant/{merchantId}/session').empty!.value);
  t.equal(session.status, 201, 'Create Session: 201');
  const updated = await send('PUT', `/api/rest/version/100/merchant/TESTMERCHANT01/session/${String(session.body.session.id)}`, merchant, bodies('PUT /api/rest/version/{version}/merchant/{merchantId}/session/{sessionId}').card!.value);
  t.equal(updated.status, 200, 'Update Session: 200');

  const TXN = 'PUT /api/rest/version/{version}/merchant/{merchantId}/order/{orderId}/transaction/{transactionId}';
  const steps: Array<[string, string, string]> = [['AUTHORIZE', 'order-1001', 'auth-1'], ['CAPTURE', 'order-1001', 'capture-1'], ['REFUND', 'order-1001', 'refund-1'], ['VOID', 'order-1001', 'void-1'], ['PAY', 'order-1002', 'pay-1'], ['VERIFY', 'order-1003', 'verify-1']];
  for (const [apiOperation, order, transaction] of steps) {
    const body = structuredClone(bodies(TXN)[apiOperation]!.value) as Json;
    if (body.sourceOfFunds?.token) body.sourceOfFunds.token = token;
    const answer = await send('PUT', `/api/rest/version/100/merchant/TESTMERCHANT01/order/${order}/transaction/${transaction}`, merchant, body);
    t.equal(answer.status, 201, `${apiOperation}: 201`);
    same(answer.body, answers(TXN, '201')[apiOperation]!.value, `${apiOperation}: as shown`);
  }
  const refused = await send('PUT', '/api/rest/version/100/merchant/TESTMERCHANT01/order/order-1002/transaction/refund-9', merchant, { apiOperation: 'REFUND', transaction: { amount: '99.00', currency: 'USD' } });
  t.same(refused.body, answers(TXN, '400').overRefund!.value, 'the over-refund: the error body shown');
});

/** Values that differ from one run to the next (times, the dates of the acquirer's batch, request ids): compared as present. */
const VARYING = /(^|\.)(creationTime|lastUpdatedTime|timeOfRecord|batch|date|settlementDate|supportCode|gatewayVersion)$/;
const normalised = (fields: Record<string, string>) => Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, VARYING.test(name) && value !== '' ? '(varies)' : value]));

t.test('the NVP examples are what tokengate answers: each form sent gets the answer of its name', async (t) => {
  const app = await buildApp({ eventStore: { kind: 'memory' }, merchants: loadMerchants(DEMO_MERCHANTS_FILE), limits: { authFailureLimit: 1 } });
  t.teardown(() => app.close());
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as Json;
  const operation = doc.paths['/api/nvp/version/{version}'].post as Json;
  const forms = operation.requestBody.content[FORM].examples as Record<string, Example>;
  const shown = Object.entries(operation.responses as Record<string, Json>)
    .flatMap(([status, response]) => Object.entries(response.content[FORM].examples as Record<string, Example>).map(([name, example]) => ({ status, name, fields: fieldsOf(example.value) })));
  const send = async (fields: Record<string, string>) => {
    const res = await app.inject({ method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': FORM }, payload: new URLSearchParams(fields).toString() });
    t.match(res.headers['content-type'], /^application\/x-www-form-urlencoded/, 'a form answer');
    return { status: String(res.statusCode), fields: fieldsOf(res.body) };
  };
  t.same(Object.keys(forms), ['pay', 'retrieveOrder', 'unknownToken'], 'a PAY, its order, an error');
  for (const [name, form] of Object.entries(forms)) {
    const answer = shown.find((example) => example.name === name);
    if (!answer) {
      t.fail(`${name}: an answer of the same name`);
      continue;
    }
    const got = await send(form.value);
    t.equal(got.status, answer.status, `${name}: HTTP ${answer.status}`);
    t.same(normalised(got.fields), normalised(answer.fields), `${name}: the answer shown, pair by pair`);
  }
  // The refusals: a wrong password, then the credential locked (a limit of one failure here).
  const wrong = { ...forms.retrieveOrder!.value, apiPassword: 'not-the-api-password-0123456789ab' };
  for (const [status, name] of [['401', 'credentials'], ['429', 'locked']] as const) {
    const got = await send(wrong);
    t.equal(got.status, status, `${name}: HTTP ${status}`);
    t.same(normalised(got.fields), normalised(shown.find((example) => example.name === name)!.fields), `${name}: the answer shown`);
  }
  // What no request here provokes: the REST error bodies of the same status, as pairs.
  const rest = doc.paths['/api/rest/version/{version}/information'].get.responses as Json;
  for (const [status, name] of [['500', 'failed'], ['503', 'busy']] as const) {
    t.same(shown.find((example) => example.name === name)!.fields, pairsOf(rest[status].content['application/json'].examples[name].value), `${status} ${name}: REST's error body as pairs`);
  }
  const information = doc.paths['/api/nvp/version/{version}/information'].get.responses as Json;
  for (const [url, status, name] of [['/api/nvp/version/100/information', '200', 'operating'], ['/api/nvp/version/101/information', '400', 'version']] as const) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(String(res.statusCode), status, `Check Gateway in NVP: HTTP ${status}`);
    t.same(normalised(fieldsOf(res.body)), normalised(fieldsOf(information[status].content[FORM].examples[name].value)), `Check Gateway in NVP: ${name} as shown`);
  }
});

/** A JSON body as the pairs NVP gives for it (an independent flattening). */
function pairsOf(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (Array.isArray(value)) value.forEach((v, i) => pairsOf(v, `${prefix}[${i}]`, out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) pairsOf(v, prefix ? `${prefix}.${k}` : k, out);
  else if (value !== undefined && value !== null) out[prefix] = String(value);
  return out;
}

t.test('the reference page shows no framework logo', async (t) => {
  const app = await buildTestApp(t);
  const page = await app.inject({ method: 'GET', url: '/documentation/' });
  t.match(page.body, '<title>tokengate API reference</title>');
  const initializer = await app.inject({ method: 'GET', url: '/documentation/static/swagger-initializer.js' });
  t.equal(initializer.statusCode, 200);
  t.notMatch(initializer.body, /data:image\/svg\+xml/, 'no logo injected');
  t.match(initializer.body, '"layout":"BaseLayout"', 'the base layout: no top bar (where the logo would be)');
});
