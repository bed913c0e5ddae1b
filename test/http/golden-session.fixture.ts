// A recorded session of every operation a client of the order path sees: tokens created, stored,
// retrieved and deleted, sessions, version 3 Pay with token (approved, declined, UNKNOWN made final,
// risk and 3-D Secure markers, merchant rules: latency and LOCK_FAILURE, SERVER_BUSY,
// SERVER_FAILED), every apiOperation of the order API (PAY, AUTHORIZE, CAPTURE, REFUND, VOID,
// VERIFY with a token, a card and a session), NVP, identical repeats (the same text several times,
// another correlationId, none), refusals, and Retrieve Order and Transaction on both paths.
// golden-answers.test.ts runs it with the clock and the random digits fixed and compares every
// answer with test/fixtures/golden-answers.json, byte for byte.
// Named *.fixture.ts so tap does not run it as a test file.
import { streams } from '../../domain/events.js';
import { basic, MERCHANTS, tokenAuth, payAuth } from '../helpers/app.js';
import type { App } from './http.fixture.js';
import { waitFor } from '../helpers/poll.js';

type M = { id: string; apiPassword: string };

/** A merchant whose rules make every fault and the order's hold reachable (latency long enough to overlap on a busy machine). */
export const GOLDEN_RULES = {
  id: 'GOLDEN01',
  apiPassword: 'test-password-golden-01-0123456789ab',
  repository: { id: 'REPOG1', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
  rules: [
    { match: { amount: '13.13' }, answer: { gatewayCode: 'INSUFFICIENT_FUNDS' } },
    { match: { reference: 'slow' }, answer: { latencyMs: 1500 } },
    { match: { reference: 'busy' }, answer: { fault: 'SERVER_BUSY' } },
    { match: { reference: 'lost' }, answer: { fault: 'SERVER_FAILED' } },
    { match: { amount: { min: '5000', max: '5999.99' }, currency: 'USD' }, answer: { risk: 'REVIEW' } },
  ],
};
/** Masks card numbers 0.4 in its answers. */
export const GOLDEN_MASK = {
  id: 'GOLDEN02',
  apiPassword: 'test-password-golden-02-0123456789ab',
  repository: { id: 'REPOG2', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS', cardNumberMasking: '0.4' },
};
export const GOLDEN_MERCHANTS = { merchants: [...MERCHANTS.merchants, GOLDEN_RULES, GOLDEN_MASK] };

const [M1, M2, , SUPPLIED] = MERCHANTS.merchants as unknown as [M, M, M, M];

export interface Answer { step: string; status: number; type: string; body: string }

/** What one request sends. */
interface Call { method: 'GET' | 'PUT' | 'POST' | 'DELETE'; url: string; authorization?: string; payload?: unknown; form?: Record<string, string> }

/**
 * Runs the session on `app`; `tick` moves the fixed clock on before each request (or group of
 * simultaneous ones). Returns every answer in order.
 */
export async function runSession(app: App, tick: () => void): Promise<Answer[]> {
  const answers: Answer[] = [];
  const send = async (step: string, call: Call): Promise<Answer> => {
    const res = await app.inject({
      method: call.method, url: call.url,
      headers: {
        ...(call.authorization ? { authorization: call.authorization } : {}),
        ...(call.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(call.form ? { payload: new URLSearchParams(call.form).toString() } : call.payload === undefined ? {} : { payload: call.payload as object }),
    });
    return { step, status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body: res.body };
  };
  const run = async (step: string, call: Call) => {
    tick();
    const answer = await send(step, call);
    answers.push(answer);
    return answer.body.startsWith('{') ? JSON.parse(answer.body) as Record<string, any> : {};
  };
  /** Requests sent at once (the same instant); their answers recorded in the order given. */
  const together = async (calls: Array<[string, Call]>) => {
    tick();
    const results = await Promise.all(calls.map(([step, call]) => send(step, call)));
    answers.push(...results);
  };
  const eventTypes = async (stream: string) => (await app.gateway.store.readStream(stream)).map((e) => e.type);
  const until = async (what: string, done: () => Promise<boolean>) => { await waitFor(done, what); };

  const rest = (m: M, version = 100) => `/api/rest/version/${version}/merchant/${m.id}`;
  const v3 = (m: M, token: string, order: string, txn: string, payload: unknown, authorization = payAuth(m)): Call =>
    ({ method: 'PUT', url: `/api/rest/version/3/merchant/${m.id}/token/${token}/order/${order}/transaction/${txn}`, authorization, payload });
  const api = (m: M, order: string, txn: string, payload: unknown, version = 100): Call =>
    ({ method: 'PUT', url: `${rest(m, version)}/order/${order}/transaction/${txn}`, authorization: tokenAuth(m), payload });
  const get = (m: M, url: string, authorization = tokenAuth(m)): Call => ({ method: 'GET', url, authorization });
  const card = (number = '5123450000000008', month = '1', year = '39') => ({ sourceOfFunds: { type: 'CARD', provided: { card: { number, expiry: { month, year } } } } });
  const money = (amount: string, currency = 'USD', extra: Record<string, unknown> = {}) => ({ apiOperation: 'PAY', transaction: { amount, currency, ...extra } });
  const byToken = (apiOperation: string, token: string, amount?: string, extra: Record<string, unknown> = {}) =>
    ({ apiOperation, order: { ...(amount !== undefined ? { amount } : {}), currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, ...extra });

  // Tokens.
  const t1 = (await run('create token (RANDOM)', { method: 'POST', url: `${rest(M1)}/token`, authorization: tokenAuth(M1), payload: card() })).token as string;
  const t2 = (await run('create token (PRESERVE_6_4)', { method: 'POST', url: `${rest(M2)}/token`, authorization: tokenAuth(M2), payload: card('4508750015741019', '5', '39') })).token as string;
  await run('tokenize (MERCHANT_SUPPLIED)', { method: 'PUT', url: `${rest(SUPPLIED)}/token/golden1`, authorization: tokenAuth(SUPPLIED), payload: card('4508750015741019') });
  const unknownCard = (await run('create token (expiry 05/37: UNKNOWN)', { method: 'POST', url: `${rest(M1)}/token`, authorization: tokenAuth(M1), payload: card('5123450000000008', '5', '37') })).token as string;
  await run('create token (a past expiry)', { method: 'POST', url: `${rest(M1)}/token`, authorization: tokenAuth(M1), payload: card('5123450000000008', '5', '21') });
  const ruled = (await run('create token (rules merchant)', { method: 'POST', url: `${rest(GOLDEN_RULES)}/token`, authorization: tokenAuth(GOLDEN_RULES), payload: card() })).token as string;
  const masked = (await run('create token (0.4 masking)', { method: 'POST', url: `${rest(GOLDEN_MASK)}/token`, authorization: tokenAuth(GOLDEN_MASK), payload: card() })).token as string;
  await run('retrieve token', get(M1, `${rest(M1)}/token/${t1}`));
  await run('create token: invalid card number', { method: 'POST', url: `${rest(M1)}/token`, authorization: tokenAuth(M1), payload: card('5123450000000009') });

  // Version 3 Pay with token.
  const full = {
    apiOperation: 'PAY', correlationId: 'c-1',
    order: { reference: 'order-ref' },
    transaction: { amount: '12.50', currency: 'USD', reference: 'golden-ref-1', source: 'MOTO', frequency: 'SINGLE', tax: { local: { amount: '1.25' } } },
    card: { securityCode: '100', holder: { firstName: 'Ada', lastName: 'Lovelace' } },
    billing: { address: { street: '12 Alpha St', country: 'USA' } },
  };
  await run('v3 pay: approved, every field', v3(M1, t1, '20000000001', 't1', full));
  for (const n of [1, 2, 3]) await run(`v3 pay: identical repeat ${n}`, v3(M1, t1, '20000000001', 't1', full));
  await run('v3 pay: repeat with another correlationId', v3(M1, t1, '20000000001', 't1', { ...full, correlationId: 'c-2' }));
  const { correlationId: _c, ...noCorrelation } = full;
  await run('v3 pay: repeat without correlationId', v3(M1, t1, '20000000001', 't1', noCorrelation));
  await run('v3 pay: repeat with another security code', v3(M1, t1, '20000000001', 't1', { ...full, card: { ...full.card, securityCode: '999' } }));
  await run('v3 pay: same ids, another amount', v3(M1, t1, '20000000001', 't1', { ...full, transaction: { ...full.transaction, amount: '13.00' } }));
  await run('v3 pay: second transaction on the order', v3(M1, t1, '20000000001', 't2', money('1.00')));
  await run('v3 pay: the first again after the second', v3(M1, t1, '20000000001', 't1', full));
  await run('v3 pay: another currency on the order', v3(M1, t1, '20000000001', 't3', money('1.00', 'EUR')));
  await run('v3 pay: a reference held by another transaction', v3(M1, t1, '20000000002', 't1', money('2.00', 'USD', { reference: 'golden-ref-1' })));
  await run('v3 pay: declined (expiry 05/39, PRESERVE_6_4 token)', v3(M2, t2, '20000000003', '1', money('3.00')));
  await run('v3 pay: amount 0', v3(M1, t1, '20000000004', '1', money('0.00')));
  await run('v3 pay: too many decimals', v3(M1, t1, '20000000004', '1', money('1.001')));
  await run('v3 pay: unsupported currency', v3(M1, t1, '20000000004', '1', money('1.00', 'XXX')));
  await run('v3 pay: unknown token', v3(M1, '9999999999999999', '20000000004', '1', money('1.00')));
  await run("v3 pay: another merchant's token", v3(M1, t2, '20000000004', '1', money('1.00')));
  await run('v3 pay: bad country', v3(M1, t1, '20000000004', '1', { ...money('1.00'), billing: { address: { country: 'XX' } } }));
  await run('v3 pay: missing amount (schema)', v3(M1, t1, '20000000004', '1', { apiOperation: 'PAY', transaction: { currency: 'USD' } }));
  await run('v3 pay: wrong password', v3(M1, t1, '20000000004', '1', money('1.00'), basic('', 'x'.repeat(32))));
  await run('v3 pay: risk marker REVIEW', v3(M1, t1, '20000000005', '1', { ...money('4.00'), order: { reference: 'RISK_REVIEW' } }));
  await run('v3 pay: risk reversed after the authorization', v3(M1, t1, '20000000010', '1', { ...money('4.00'), order: { reference: 'cart RISK_REJECT_AFTER_AUTH' } }));
  await run('v3 pay: system reject', v3(M1, t1, '20000000006', '1', { ...money('4.00'), order: { reference: 'RISK_SYSTEM_REJECT' } }));
  await run('v3 pay: 3-D Secure marker', v3(M1, t1, '20000000007', '1', { ...money('4.00'), card: { holder: { lastName: 'Smith 3DS_NOT_AUTHENTICATED' } } }));
  await run('v3 pay: 0.4 masking', v3(GOLDEN_MASK, masked, '20000000008', '1', money('5.00')));
  await run('v3 pay: 0.4 masking, repeat', v3(GOLDEN_MASK, masked, '20000000008', '1', money('5.00')));
  await run('v3 pay: UNKNOWN', v3(M1, unknownCard, '20000000009', '1', money('6.00')));
  await until('the UNKNOWN payment resolved', async () => (await eventTypes(streams.order(M1.id, '20000000009'))).includes('PaymentOutcomeResolved'));
  await run('v3 pay: repeat of the UNKNOWN after it was resolved', v3(M1, unknownCard, '20000000009', '1', money('6.00')));
  await run('v3 retrieve order', get(M1, `/api/rest/version/3/merchant/${M1.id}/order/20000000001`, payAuth(M1)));
  await run('v3 retrieve transaction', get(M1, `/api/rest/version/3/merchant/${M1.id}/order/20000000001/transaction/t1`, payAuth(M1)));
  await run('v3 retrieve transaction (resolved)', get(M1, `/api/rest/version/3/merchant/${M1.id}/order/20000000009/transaction/1`, payAuth(M1)));
  await run('v3 retrieve: no such order', get(M1, `/api/rest/version/3/merchant/${M1.id}/order/29999999999`, payAuth(M1)));

  // Merchant rules on version 3.
  await run('v3 rules: gatewayCode', v3(GOLDEN_RULES, ruled, '21000000001', '1', money('13.13')));
  await run('v3 rules: risk REVIEW', v3(GOLDEN_RULES, ruled, '21000000002', '1', money('5500.00')));
  await run('v3 rules: SERVER_BUSY', v3(GOLDEN_RULES, ruled, '21000000003', '1', { ...money('1.00'), order: { reference: 'busy' } }));
  const lost = v3(GOLDEN_RULES, ruled, '21000000004', '1', { ...money('1.00'), order: { reference: 'lost' } });
  await run('v3 rules: SERVER_FAILED', lost);
  await run('v3 rules: SERVER_FAILED, the repeat', lost);
  const slow = v3(GOLDEN_RULES, ruled, '21000000005', '1', { ...money('2.00'), order: { reference: 'slow' } });
  tick();
  const held = send('v3 rules: latency, the first', slow);
  await until('the order held', async () => (await eventTypes(streams.order(GOLDEN_RULES.id, '21000000005'))).includes('PaymentStarted'));
  await together([
    ['v3 rules: latency, another transaction meanwhile (LOCK_FAILURE)', v3(GOLDEN_RULES, ruled, '21000000005', '2', money('1.00'))],
    ['v3 rules: latency, an identical repeat meanwhile', slow],
    ['v3 rules: latency, the same transaction with another body meanwhile', v3(GOLDEN_RULES, ruled, '21000000005', '1', { ...money('3.00'), order: { reference: 'slow' } })],
  ]);
  answers.push(await held);
  await run('v3 rules: after the hold, another transaction', v3(GOLDEN_RULES, ruled, '21000000005', '3', money('1.00')));

  // The order API, version 100 and older versions.
  await run('api AUTHORIZE (token)', api(M1, 'api-1', 'auth', byToken('AUTHORIZE', t1, '100.00', { order: { amount: '100.00', currency: 'USD', reference: 'api-ref' }, transaction: { reference: 'r1' } })));
  await run('api AUTHORIZE repeat', api(M1, 'api-1', 'auth', byToken('AUTHORIZE', t1, '100.00', { order: { amount: '100.00', currency: 'USD', reference: 'api-ref' }, transaction: { reference: 'r1' } })));
  await run('api CAPTURE partial', api(M1, 'api-1', 'cap-1', { apiOperation: 'CAPTURE', transaction: { amount: '40.00', currency: 'USD' } }));
  await run('api CAPTURE repeat', api(M1, 'api-1', 'cap-1', { apiOperation: 'CAPTURE', transaction: { amount: '40.00', currency: 'USD' } }));
  await run('api CAPTURE same ids, another amount', api(M1, 'api-1', 'cap-1', { apiOperation: 'CAPTURE', transaction: { amount: '41.00', currency: 'USD' } }));
  await run('api CAPTURE beyond the authorized', api(M1, 'api-1', 'cap-2', { apiOperation: 'CAPTURE', transaction: { amount: '70.00', currency: 'USD' } }));
  await run('api CAPTURE another currency', api(M1, 'api-1', 'cap-2', { apiOperation: 'CAPTURE', transaction: { amount: '1.00', currency: 'EUR' } }));
  await run('api CAPTURE the rest (JSON number)', api(M1, 'api-1', 'cap-2', { apiOperation: 'CAPTURE', transaction: { amount: 60, currency: 'USD', reference: '1' } }));
  await run('api REFUND', api(M1, 'api-1', 'ref-1', { apiOperation: 'REFUND', transaction: { amount: '15.50', currency: 'USD' } }));
  await run('api REFUND beyond the captured', api(M1, 'api-1', 'ref-2', { apiOperation: 'REFUND', transaction: { amount: '99.00', currency: 'USD' } }));
  await run('api VOID the first capture', api(M1, 'api-1', 'void-1', { apiOperation: 'VOID', transaction: { targetTransactionId: 'cap-1' } }));
  await run('api VOID the refund', api(M1, 'api-1', 'void-2', { apiOperation: 'VOID', transaction: { targetTransactionId: 'ref-1' } }));
  await run('api VOID the refund again', api(M1, 'api-1', 'void-3', { apiOperation: 'VOID', transaction: { targetTransactionId: 'ref-1' } }));
  await run('api VOID a void', api(M1, 'api-1', 'void-4', { apiOperation: 'VOID', transaction: { targetTransactionId: 'void-2' } }));
  await run('api VOID no such target', api(M1, 'api-1', 'void-5', { apiOperation: 'VOID', transaction: { targetTransactionId: 'nope' } }));
  await run('api VOID missing target', api(M1, 'api-1', 'void-6', { apiOperation: 'VOID', transaction: {} }));
  await run('api VOID repeat', api(M1, 'api-1', 'void-2', { apiOperation: 'VOID', transaction: { targetTransactionId: 'ref-1' } }));
  await run('api retrieve transaction', get(M1, `${rest(M1)}/order/api-1/transaction/cap-1`));
  await run('api retrieve order', get(M1, `${rest(M1)}/order/api-1`));
  await run('api retrieve order (version 61)', get(M1, `${rest(M1, 61)}/order/api-1`));
  await run('api CAPTURE no such order', api(M1, 'api-none', 'cap', { apiOperation: 'CAPTURE', transaction: { amount: '1.00', currency: 'USD' } }));
  await run('api PAY (token, version 72)', api(M1, '23000000001', 'pay', byToken('PAY', t1, '25.00'), 72));
  await run('api VOID the payment', api(M1, '23000000001', 'void', { apiOperation: 'VOID', transaction: { targetTransactionId: 'pay' } }, 72));
  await run('api PAY (card in the request)', api(M1, 'api-3', 'pay', { apiOperation: 'PAY', order: { amount: '8.00', currency: 'USD' }, sourceOfFunds: { provided: { card: { number: '4508750015741019', expiry: { month: '1', year: '39' }, securityCode: '123', nameOnCard: 'A B' } } } }));
  await run('api PAY (card, bad Luhn)', api(M1, 'api-4', 'pay', { apiOperation: 'PAY', order: { amount: '8.00', currency: 'USD' }, sourceOfFunds: { provided: { card: { number: '4508750015741018', expiry: { month: '1', year: '39' } } } } }));
  await run('api PAY missing currency', api(M1, 'api-4', 'pay', { apiOperation: 'PAY', order: { amount: '8.00' }, sourceOfFunds: { type: 'CARD', token: t1 } }));
  await run('api PAY missing source', api(M1, 'api-4', 'pay', { apiOperation: 'PAY', order: { amount: '8.00', currency: 'USD' } }));
  await run('api PAY unknown token', api(M1, 'api-4', 'pay', byToken('PAY', '9999999999999999', '8.00')));
  await run('api PAY order id is a card number', api(M1, '5123450000000008', 'pay', byToken('PAY', t1, '8.00')));
  await run('api VERIFY', api(M1, 'api-5', 'verify', byToken('VERIFY', t1)));
  await run('api VERIFY repeat', api(M1, 'api-5', 'verify', byToken('VERIFY', t1)));
  await run('api AUTHORIZE after VERIFY', api(M1, 'api-5', 'auth', byToken('AUTHORIZE', t1, '9.00')));
  await run('api PAY declined (expiry 05/21 card)', api(M1, 'api-6', 'pay', { apiOperation: 'PAY', order: { amount: '8.00', currency: 'USD' }, sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '5', year: '21' } } } } }));
  await run('api PAY 3-D Secure marker', api(M1, 'api-12', 'pay', { apiOperation: 'PAY', order: { amount: '8.00', currency: 'USD' }, sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, nameOnCard: 'Smith 3DS_NOT_AUTHENTICATED' } } } }));
  await run('api PAY UNKNOWN', api(M1, 'api-7', 'pay', byToken('PAY', unknownCard, '7.00')));
  await until('the UNKNOWN transaction resolved', async () => (await eventTypes(streams.order(M1.id, 'api-7'))).includes('PaymentOutcomeResolved'));
  await run('api retrieve the resolved transaction', get(M1, `${rest(M1)}/order/api-7/transaction/pay`));
  await run('api PAY 0.4 masking', api(GOLDEN_MASK, 'api-8', 'pay', byToken('PAY', masked, '3.00')));
  await run('api retrieve order 0.4 masking', get(GOLDEN_MASK, `${rest(GOLDEN_MASK)}/order/api-8`));
  await run('api PAY on version 49', api(M1, 'api-9', 'pay', byToken('PAY', t1, '3.00'), 49));

  // A version 3 order seen and changed by the order API, and the other way round.
  await run('api REFUND a version 3 payment', api(M1, '20000000001', 'api-refund', { apiOperation: 'REFUND', transaction: { amount: '2.00', currency: 'USD' } }));
  await run('api VOID a version 3 payment', api(M1, '20000000001', 'api-void', { apiOperation: 'VOID', transaction: { targetTransactionId: 't2' } }));
  await run('api retrieve a version 3 order', get(M1, `${rest(M1)}/order/20000000001`));
  await run('api retrieve a version 3 transaction', get(M1, `${rest(M1)}/order/20000000001/transaction/t1`));
  await run('api PAY reusing a version 3 transaction id', api(M1, '20000000001', 't1', byToken('PAY', t1, '12.50')));
  await run('v3 pay reusing an order API transaction id', v3(M1, t1, '20000000001', 'api-refund', money('2.00')));
  await run('v3 retrieve an order the order API changed', get(M1, `/api/rest/version/3/merchant/${M1.id}/order/20000000001`, payAuth(M1)));
  await run('v3 pay on an order API order', v3(M1, t1, '23000000001', 'v3', money('1.00')));

  // Merchant rules on the order API.
  await run('api rules: gatewayCode', api(GOLDEN_RULES, 'rules-1', '1', byToken('AUTHORIZE', ruled, '13.13')));
  await run('api rules: SERVER_BUSY', api(GOLDEN_RULES, 'rules-2', '1', byToken('AUTHORIZE', ruled, '1.00', { order: { amount: '1.00', currency: 'USD', reference: 'busy' } })));
  const apiLost = api(GOLDEN_RULES, 'rules-3', '1', byToken('PAY', ruled, '1.00', { order: { amount: '1.00', currency: 'USD', reference: 'lost' } }));
  await run('api rules: SERVER_FAILED', apiLost);
  await run('api rules: SERVER_FAILED, the repeat', apiLost);
  const apiSlow = api(GOLDEN_RULES, 'rules-4', 'auth', byToken('AUTHORIZE', ruled, '20.00', { order: { amount: '20.00', currency: 'USD', reference: 'slow' } }));
  tick();
  const apiHeld = send('api rules: latency, the first', apiSlow);
  await until('the order held', async () => (await eventTypes(streams.order(GOLDEN_RULES.id, 'rules-4'))).includes('PaymentStarted'));
  await together([
    ['api rules: latency, another transaction meanwhile (LOCK_FAILURE)', api(GOLDEN_RULES, 'rules-4', 'other', byToken('AUTHORIZE', ruled, '1.00'))],
    ['api rules: latency, a capture meanwhile (LOCK_FAILURE)', api(GOLDEN_RULES, 'rules-4', 'cap', { apiOperation: 'CAPTURE', transaction: { amount: '1.00', currency: 'USD' } })],
    ['api rules: latency, an identical repeat meanwhile', apiSlow],
    ['api rules: latency, the same transaction with another body meanwhile', api(GOLDEN_RULES, 'rules-4', 'auth', byToken('AUTHORIZE', ruled, '21.00', { order: { amount: '21.00', currency: 'USD', reference: 'slow' } }))],
  ]);
  answers.push(await apiHeld);
  await run('api rules: after the hold, a capture', api(GOLDEN_RULES, 'rules-4', 'cap', { apiOperation: 'CAPTURE', transaction: { amount: '20.00', currency: 'USD' } }));

  // Sessions, on the order API.
  const session = (await run('create session', { method: 'POST', url: `${rest(M1)}/session`, authorization: tokenAuth(M1) })).session?.id as string;
  await run('update session with a card', { method: 'PUT', url: `${rest(M1)}/session/${session}`, authorization: tokenAuth(M1), payload: { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' } } }, order: { amount: '4.00', currency: 'USD' } } });
  await run('api PAY with the session', api(M1, 'api-10', 'pay', { apiOperation: 'PAY', session: { id: session } }));
  await run('api PAY with the session, repeat', api(M1, 'api-10', 'pay', { apiOperation: 'PAY', session: { id: session } }));
  await run('retrieve session', get(M1, `${rest(M1)}/session/${session}`));

  // NVP.
  const creds = { merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword };
  const nvp = (form: Record<string, string>): Call => ({ method: 'POST', url: '/api/nvp/version/55', form: { ...creds, ...form } });
  await run('nvp PAY', nvp({ apiOperation: 'PAY', 'order.id': 'nvp-1', 'transaction.id': '1', 'order.amount': '9.00', 'order.currency': 'USD', 'sourceOfFunds.type': 'CARD', 'sourceOfFunds.token': t1 }));
  await run('nvp PAY repeat', nvp({ apiOperation: 'PAY', 'order.id': 'nvp-1', 'transaction.id': '1', 'order.amount': '9.00', 'order.currency': 'USD', 'sourceOfFunds.type': 'CARD', 'sourceOfFunds.token': t1 }));
  await run('nvp REFUND', nvp({ apiOperation: 'REFUND', 'order.id': 'nvp-1', 'transaction.id': '2', 'transaction.amount': '1.00', 'transaction.currency': 'USD' }));
  await run('nvp RETRIEVE_ORDER', nvp({ apiOperation: 'RETRIEVE_ORDER', 'order.id': 'nvp-1' }));
  await run('nvp RETRIEVE_TRANSACTION', nvp({ apiOperation: 'RETRIEVE_TRANSACTION', 'order.id': 'nvp-1', 'transaction.id': '1' }));

  // Deletion: a deleted token pays no more, its payments stay.
  await run('delete token', { method: 'DELETE', url: `${rest(M1)}/token/${t1}`, authorization: tokenAuth(M1) });
  await run('v3 pay with the deleted token: a repeat', v3(M1, t1, '20000000001', 't1', full));
  await run('v3 pay with the deleted token', v3(M1, t1, '22000000001', '1', money('1.00')));
  await run('api PAY with the deleted token', api(M1, 'api-11', 'pay', byToken('PAY', t1, '1.00')));
  await run('v3 retrieve after the deletion', get(M1, `/api/rest/version/3/merchant/${M1.id}/order/20000000001/transaction/t1`, payAuth(M1)));
  return answers;
}
