// Every outcome trigger of docs/triggers.md ("Outcome triggers"), through HTTP: the tables are
// read from that page itself, so a row documented there is a row tested here (and a row without
// a test case fails). Together the tables reach each of the 27 response.gatewayCode values, the
// 5 risk codes, the 13 3-D Secure codes and the 12 AVS codes.
import t, { type Test } from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { GATEWAY_CODES, THREE_D_SECURE_CODES } from '../../domain/order/triggers.js';
import {
  cell, MERCHANTS_WITH_RULES, newOrderId, payAs, payBody, readmeTriggerTables, RULES, storedCard, type App,
} from './pay-triggers.fixture.js';
import { streams } from '../../domain/events.js';

const tables = readmeTriggerTables();
const rowsOf = (t: Test, header: string): string[][] => {
  const rows = tables.get(header);
  t.ok(rows && rows.length > 0, `docs/triggers.md has the table '${header}'`);
  return rows ?? [];
};

async function appWithRules(t: Test): Promise<App> {
  return buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
}

function expiryOf(text: string): [number, number] {
  if (text === 'any other date not yet past') return [3, 35];
  if (text === 'a past date') return [1, 20];
  const [month, year] = text.split('/').map(Number);
  return [month ?? 0, year ?? 0];
}

/** Totals and status that follow a result when nothing else intervenes. */
function expectOrder(t: Test, body: any, result: string, amount: number, what: string) {
  const moved = result === 'SUCCESS' ? amount : 0;
  t.equal(body.order.totalAuthorizedAmount, moved, `${what}: totalAuthorizedAmount`);
  t.equal(body.order.totalCapturedAmount, moved, `${what}: totalCapturedAmount`);
  const status = result === 'SUCCESS' ? 'CAPTURED' : result === 'FAILURE' ? 'FAILED' : 'INITIATED';
  t.equal(body.order.status, status, `${what}: order.status`);
}

for (const header of ['expiry (MM/YY)', 'sandbox expiry (MM/YY)']) {
  t.test(`docs/triggers.md table '${header}': each expiry date`, async (t) => {
    const app = await appWithRules(t);
    for (const [expiry = '', gatewayCode, result = '', acquirerCode] of rowsOf(t, header)) {
      const [month, year] = expiryOf(expiry);
      const token = await storedCard(app, M1, month, year);
      const res = await payAs(app, M1, token, payBody('12.50', { card: { securityCode: '100' }, billing: { address: { street: '1 Alpha St' } } }));
      t.equal(res.statusCode, 201, `${expiry}: 201 ${res.body}`);
      const body = res.json();
      t.equal(body.response.gatewayCode, gatewayCode, `${expiry}: gatewayCode`);
      t.equal(body.result, result, `${expiry}: result`);
      t.equal(body.response.acquirerCode, cell(acquirerCode), `${expiry}: acquirerCode`);
      const asked = cell(acquirerCode) !== undefined;
      t.equal('receipt' in body.transaction, asked, `${expiry}: a receipt only when the acquirer was asked`);
      t.equal(body.response.cardSecurityCode?.gatewayCode, asked ? 'MATCH' : undefined, `${expiry}: CSC only when the acquirer was asked`);
      t.equal(body.response.avs?.gatewayCode, asked ? 'ADDRESS_MATCH' : undefined, `${expiry}: AVS only when the acquirer was asked`);
      t.equal('authorizationCode' in body.transaction, result === 'SUCCESS', `${expiry}: authorizationCode only on approval`);
      expectOrder(t, body, result, 12.5, expiry);
    }
  });
}

t.test('the expiry tables reach all 27 gateway codes', async (t) => {
  const codes = new Set([...rowsOf(t, 'expiry (MM/YY)'), ...rowsOf(t, 'sandbox expiry (MM/YY)')].map((row) => row[1]));
  t.strictSame([...codes].sort(), [...GATEWAY_CODES].sort());
});

const CSC_CASES: Record<string, Array<[brand: string, number: string, code: string | undefined]>> = {
  '100 (AMEX 1000)': [['MASTERCARD', '512345xxxxxx0008', '100'], ['AMEX', '345678xxxxx4564', '1000']],
  '101 (AMEX 1010)': [['MASTERCARD', '512345xxxxxx0008', '101'], ['AMEX', '345678xxxxx4564', '1010']],
  '102 (AMEX 1020)': [['MASTERCARD', '512345xxxxxx0008', '102'], ['AMEX', '345678xxxxx4564', '1020']],
  'any other code': [['MASTERCARD', '512345xxxxxx0008', '555'], ['AMEX', '345678xxxxx4564', '100']],
  'none sent': [['MASTERCARD', '512345xxxxxx0008', undefined]],
  'any code on a UATP card': [['UATP', '135492xxxxx4528', '100']],
};

t.test("docs/triggers.md table 'code': the card security code", async (t) => {
  const app = await appWithRules(t);
  for (const [code = '', gatewayCode, acquirerCode] of rowsOf(t, 'code')) {
    const cases = CSC_CASES[cell(code) ?? ''];
    if (!cases) { t.fail(`no test case for the CSC row '${code}'`); continue; }
    for (const [brand, number, securityCode] of cases) {
      const token = await storedCard(app, M1, 1, 39, brand, number);
      const res = await payAs(app, M1, token, payBody('10.00', securityCode ? { card: { securityCode } } : {}));
      const what = `${brand} ${securityCode ?? 'none'}`;
      t.equal(res.json().response.cardSecurityCode?.gatewayCode, gatewayCode, `${what}: gatewayCode`);
      t.equal(res.json().response.cardSecurityCode?.acquirerCode, cell(acquirerCode), `${what}: acquirerCode`);
      t.equal(res.json().response.gatewayCode, 'APPROVED', `${what}: the CSC does not decline by itself`);
    }
  }
});

t.test("docs/triggers.md table 'street contains': AVS", async (t) => {
  const app = await appWithRules(t);
  const token = await storedCard(app, M1, 1, 39);
  const rows = rowsOf(t, 'street contains');
  for (const [words = '', gatewayCode, acquirerCode] of rows) {
    const street = words === 'none of these' ? '1 Main St' : `12 ${cell(words)?.toLowerCase()} apt 4`;
    const res = await payAs(app, M1, token, payBody('10.00', { billing: { address: { street } } }));
    t.strictSame(res.json().response.avs, { acquirerCode: cell(acquirerCode), gatewayCode }, street);
  }
  t.equal(rows.length, 12, 'all 12 AVS codes');
  const none = await payAs(app, M1, token, payBody('10.00'));
  t.notOk('avs' in none.json().response, 'no street: no response.avs');
});

t.test("docs/triggers.md table 'word in order.reference': risk", async (t) => {
  const app = await appWithRules(t);
  const approving = await storedCard(app, M1, 1, 39);
  const declining = await storedCard(app, M1, 5, 39);
  const rows = rowsOf(t, 'word in order.reference');
  for (const [word = '', riskCode, reviewResult, reversal, gatewayCode, result, after = ''] of rows) {
    const marker = cell(word) ?? '';
    const bypass = marker.startsWith('action.');
    const extra = bypass
      ? { order: { reference: 'cart RISK_REJECT' }, action: { bypassMerchantRiskRules: 'ALL' } }
      : { order: { reference: `cart-7 ${marker}` } };
    const res = await payAs(app, M1, approving, payBody('12.50', extra));
    const body = res.json();
    t.equal(res.statusCode, 201, `${marker}: 201`);
    const risk: Record<string, string> = { gatewayCode: riskCode ?? '' };
    if (cell(reviewResult)) risk.reviewResult = cell(reviewResult) ?? '';
    if (cell(reversal)) risk.reversalTransactionResult = cell(reversal) ?? '';
    t.strictSame(body.response.risk, risk, `${marker}: response.risk`);
    t.equal(body.response.gatewayCode, gatewayCode === "the acquirer's" ? 'APPROVED' : gatewayCode, `${marker}: gatewayCode`);
    t.equal(body.result, result === "the acquirer's" ? 'SUCCESS' : result, `${marker}: result`);
    const moved = after.includes('no money moved') ? 0 : 12.5;
    t.equal(body.order.totalCapturedAmount, moved, `${marker}: totalCapturedAmount`);
    t.equal(body.order.totalAuthorizedAmount, moved, `${marker}: totalAuthorizedAmount`);
    t.equal(body.order.status, /\b(CANCELLED|FAILED|CAPTURED)\b/.exec(after)?.[1] ?? 'CAPTURED', `${marker}: order.status`);
    if (cell(reversal) === 'OKAY' || cell(reversal) === 'FAIL') {
      const declined = (await payAs(app, M1, declining, payBody('12.50', extra))).json();
      t.equal(declined.response.gatewayCode, 'DECLINED', `${marker} on a declined card: the decline stands`);
      t.equal(declined.response.risk.reversalTransactionResult, 'NOT_APPLICABLE', `${marker} on a declined card: nothing to reverse`);
      t.equal(declined.order.totalCapturedAmount, 0);
    }
  }
  t.strictSame([...new Set(rows.map((r) => r[1]))].sort(), ['ACCEPT', 'NOT_CHECKED', 'REJECT', 'REVIEW', 'SYSTEM_REJECT'], 'all 5 risk codes');
  const system = (await payAs(app, M1, approving, payBody('12.50', { order: { reference: 'RISK_SYSTEM_REJECT' }, action: { bypassMerchantRiskRules: 'ALL' } }))).json();
  t.equal(system.response.risk.gatewayCode, 'SYSTEM_REJECT', 'a system rule rejects even with the bypass');
  t.equal(system.response.gatewayCode, 'BLOCKED');
  const plain = (await payAs(app, M1, approving, payBody('12.50', { order: { reference: 'risk_reject in lower case' } }))).json();
  t.notOk('risk' in plain.response, 'no marker (markers are upper case), no risk rules: no response.risk');
});

t.test("docs/triggers.md table 'word in the holder's name': 3-D Secure, version 3 (card.holder.lastName)", async (t) => {
  const app = await appWithRules(t);
  const token = await storedCard(app, M1, 1, 39);
  const rows = rowsOf(t, "word in the holder's name");
  for (const [word = '', code, effect = ''] of rows) {
    const holder = { firstName: 'Ada', lastName: `Smith ${cell(word)}` };
    const res = await payAs(app, M1, token, payBody('12.50', { card: { holder } }));
    const body = res.json();
    t.strictSame(body.response['3dsecure'], { gatewayCode: code }, `${word}: response.3dsecure`);
    const [gatewayCode, result] = effect === 'goes on to the acquirer' ? ['APPROVED', 'SUCCESS'] : effect.split(', ');
    t.equal(body.response.gatewayCode, gatewayCode, `${word}: gatewayCode`);
    t.equal(body.result, result, `${word}: result`);
    t.strictSame(body.card.holder, holder, `${word}: card.holder echoed`);
  }
  t.strictSame(rows.map((r) => r[1]).sort(), [...THREE_D_SECURE_CODES].sort(), 'all 13 3-D Secure codes');
  const none = await payAs(app, M1, token, payBody('12.50'));
  t.notOk('3dsecure' in none.json().response, 'no marker: no response.3dsecure');
});

/** An order API PAY (version 100) as merchant M1. */
const orderPay = (app: App, body: Record<string, unknown>) => app.inject({
  method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${uniqueId()}/transaction/1`,
  headers: { authorization: tokenAuth(M1) }, payload: { apiOperation: 'PAY', order: { amount: '12.50', currency: 'USD' }, ...body },
});

t.test("docs/triggers.md table 'word in the holder's name': 3-D Secure, order API (sourceOfFunds.provided.card.nameOnCard)", async (t) => {
  const app = await appWithRules(t);
  const token = await storedCard(app, M1, 1, 39);
  const rows = rowsOf(t, "word in the holder's name");
  for (const [word = '', code, effect = ''] of rows) {
    const nameOnCard = `Ada Smith ${cell(word)}`;
    const res = await orderPay(app, { sourceOfFunds: { token, provided: { card: { nameOnCard } } } });
    t.equal(res.statusCode, 201, `${word}: 201 ${res.body}`);
    const body = res.json();
    t.strictSame(body.response['3dsecure'], { gatewayCode: code }, `${word}: response.3dsecure`);
    const [gatewayCode, result] = effect === 'goes on to the acquirer' ? ['APPROVED', 'SUCCESS'] : effect.split(', ');
    t.equal(body.response.gatewayCode, gatewayCode, `${word}: gatewayCode`);
    t.equal(body.result, result, `${word}: result`);
    t.equal(body.order.status, result === 'SUCCESS' ? 'CAPTURED' : 'FAILED', `${word}: order.status`);
    t.equal(body.order.totalCapturedAmount, result === 'SUCCESS' ? 12.5 : 0, `${word}: money moves only when it goes on`);
  }
  t.strictSame(rows.map((r) => r[1]).sort(), [...THREE_D_SECURE_CODES].sort(), 'all 13 3-D Secure codes');
  // The name held by the session the request names decides the same way.
  const sessions = `/api/rest/version/100/merchant/${M1.id}/session`;
  const id = (await app.inject({ method: 'POST', url: sessions, headers: { authorization: tokenAuth(M1) } })).json().session.id as string;
  await app.inject({
    method: 'PUT', url: `${sessions}/${id}`, headers: { authorization: tokenAuth(M1) },
    payload: { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, nameOnCard: 'Ada 3DS_NOT_ENROLLED' } } } },
  });
  const held = (await orderPay(app, { session: { id } })).json();
  t.strictSame([held.response['3dsecure'], held.response.gatewayCode], [{ gatewayCode: 'NOT_ENROLLED' }, 'NOT_ENROLLED_3D_SECURE'], "the session's nameOnCard");
  const none = (await orderPay(app, { sourceOfFunds: { token }, order: { amount: '12.50', currency: 'USD', reference: 'no holder name' } })).json();
  t.notOk('3dsecure' in none.response, 'no marker: no response.3dsecure');
});

type RuleCase = (t: Test, app: App, token: string, visa: string) => Promise<void>;

const RULE_CASES: Array<[prefix: string, run: RuleCase]> = [
  ['gatewayCode', async (t, app, token, visa) => {
    const body = (await payAs(app, RULES, token, payBody('13.13'))).json();
    t.equal(body.response.gatewayCode, 'INSUFFICIENT_FUNDS', 'amount 13.13: the rule answers');
    t.equal(body.response.acquirerCode, '51');
    t.strictSame(body.response.risk, { gatewayCode: 'ACCEPT', reviewResult: 'NOT_REQUIRED' }, 'a merchant with risk rules: ACCEPT when none matches');
    t.equal((await payAs(app, RULES, token, payBody('13.14'))).json().response.gatewayCode, 'APPROVED', 'another amount: no rule');
    t.equal((await payAs(app, RULES, visa, payBody('7.77'))).json().response.gatewayCode, 'REFERRED', 'card brand and amount');
    t.equal((await payAs(app, RULES, token, payBody('7.77'))).json().response.gatewayCode, 'APPROVED', 'another brand: no rule');
  }],
  ['latencyMs', async (t, app, token) => {
    const started = Date.now();
    const res = await payAs(app, RULES, token, payBody('12.50', { order: { reference: 'slow' } }));
    t.ok(Date.now() - started >= 2000, `answered after the rule's 2000 ms (${Date.now() - started} ms)`);
    t.equal(res.json().response.gatewayCode, 'APPROVED');
  }],
  ['fault: SERVER_BUSY', async (t, app, token) => {
    const order = newOrderId();
    const res = await payAs(app, RULES, token, payBody('12.50', { order: { reference: 'busy' } }), order);
    t.equal(res.statusCode, 503);
    t.equal(res.body, '{"error":{"cause":"SERVER_BUSY","explanation":"The gateway is busy: repeat the identical request later"},"result":"ERROR"}');
    t.equal((await app.gateway.store.readStream(streams.order(RULES.id, order))).length, 0, 'nothing recorded');
  }],
  ['fault: SERVER_FAILED', async (t, app, token) => {
    const order = newOrderId();
    const body = payBody('12.50', { order: { reference: 'lost' } });
    const first = await payAs(app, RULES, token, body, order);
    t.equal(first.statusCode, 500);
    t.equal(first.body, `{"error":{"cause":"SERVER_FAILED","supportCode":"${String(first.headers['x-request-id'])}"},"result":"ERROR"}`);
    const retry = await payAs(app, RULES, token, body, order);
    t.equal(retry.statusCode, 201, 'the identical retry answers the recorded payment');
    t.equal(retry.json().response.gatewayCode, 'APPROVED');
    const events = await app.gateway.store.readStream(streams.order(RULES.id, order));
    t.strictSame(events.map((e) => e.type), ['PaymentRecorded'], 'recorded once, at the first request');
  }],
  ['risk', async (t, app, token) => {
    const review = (await payAs(app, RULES, token, payBody('5000.00'))).json();
    t.strictSame(review.response.risk, { gatewayCode: 'REVIEW', reviewResult: 'PENDING' }, 'risk REVIEW from a rule');
    const reject = (await payAs(app, RULES, token, payBody('6000.00'))).json();
    t.equal(reject.response.risk.gatewayCode, 'REJECT', 'risk REJECT from a rule');
    t.equal(reject.response.gatewayCode, 'BLOCKED');
    const bypassed = (await payAs(app, RULES, token, payBody('6000.00', { action: { bypassMerchantRiskRules: 'ALL' } }))).json();
    t.strictSame(bypassed.response.risk, { gatewayCode: 'NOT_CHECKED' }, 'bypassMerchantRiskRules ALL skips the risk rule');
    t.equal(bypassed.response.gatewayCode, 'APPROVED');
  }],
];

t.test("docs/triggers.md table 'rule answer': a merchant's own rules", async (t) => {
  const app = await appWithRules(t);
  const token = await storedCard(app, RULES, 1, 39);
  const visa = await storedCard(app, RULES, 1, 39, 'VISA', '450875xxxxxx1019');
  for (const [answer = ''] of rowsOf(t, 'rule answer')) {
    const found = RULE_CASES.find(([prefix]) => (cell(answer) ?? '').startsWith(prefix));
    if (!found) { t.fail(`no test case for the rule answer '${answer}'`); continue; }
    await t.test(answer, (t) => found[1](t, app, token, visa));
  }
});
