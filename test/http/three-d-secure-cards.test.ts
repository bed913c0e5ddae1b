// Every row of the 3-D Secure tables of docs/triggers.md ("3-D Secure"), through HTTP: the
// emulator's test cards (Initiate Authentication, Authenticate Payer, the challenge passed, the PAY
// that names the authentication), the challenge page's answers for a Mastercard-family and a
// Visa-family card, and what each authentication status answers and does to a payment. The tables
// are read from the page itself: a documented row is a tested row.
import t, { type Test } from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { streams } from '../../domain/events.js';
import { TEST_CARDS, CHALLENGE_TOKEN } from '../../domain/order/authentication-cards.js';
import { cell, readmeTriggerTables } from './pay-triggers.fixture.js';
import { answerChallenge, authenticateBody, cardSource, initiateBody, newFlow, payBody, put, transactionUrl, type Flow } from './three-d-secure.fixture.js';
import type { App } from './http.fixture.js';

const tables = readmeTriggerTables();
const rowsOf = (t: Test, header: string): string[][] => {
  const rows = tables.get(header);
  t.ok(rows && rows.length > 0, `docs/triggers.md has the table '${header}'`);
  return rows ?? [];
};

const retrieve = async (f: Flow) =>
  (await f.app.inject({ method: 'GET', url: transactionUrl(f.orderId, 'a1'), headers: { authorization: tokenAuth(M1) } })).json();

/** The ECI a passed (or failed) challenge gives a brand of the test table. */
const challengeEci = (brand: string, passed: boolean) =>
  brand === 'Mastercard' || brand === 'Maestro' ? (passed ? '02' : '00') : (passed ? '05' : '07');

async function checkPayment(t: Test, f: Flow, number: string, succeeded: boolean, what: string) {
  const pay = (await put(f, 'p1', payBody('a1', cardSource(number)))).json();
  t.equal(pay.response.gatewayCode, succeeded ? 'APPROVED' : 'AUTHENTICATION_FAILED', `${what}: the PAY naming the authentication`);
  t.equal(pay.authentication.transactionId, 'a1', `${what}: the PAY carries the authentication`);
  if (!succeeded) t.strictSame([pay.response.acquirerCode, pay.order.totalCapturedAmount], [undefined, 0], `${what}: the acquirer is not asked`);
}

async function cardRow(t: Test, app: App, row: string[]) {
  const [number = '', brand = '', , version, method, status, reason, eci, token] = row;
  const f = newFlow(app);
  const initiated = await put(f, 'a1', initiateBody(cardSource(number)));
  if (version === '500 SERVER_FAILED') {
    t.equal(initiated.statusCode, 500, `${number}: Initiate fails`);
    t.strictSame([initiated.json().error.cause, typeof initiated.json().error.supportCode], ['SERVER_FAILED', 'string']);
    t.equal((await app.gateway.store.readStream(streams.order(M1.id, f.orderId))).length, 0, `${number}: nothing recorded`);
    return;
  }
  const i = initiated.json();
  t.strictSame([i.authentication.version, i.transaction.authenticationStatus], [version, 'AUTHENTICATION_AVAILABLE'], `${number}: Initiate`);
  t.equal(i.authentication['3ds2'].methodSupported, method === 'yes' ? 'SUPPORTED' : 'NOT_SUPPORTED', `${number}: ACS method`);
  t.equal(i.authentication.redirect.html.includes('initiate3dsSimpleRedirect'), method === 'yes', `${number}: the method call HTML`);
  const payer = await put(f, 'a1', authenticateBody());
  if (status === '500 SERVER_FAILED') {
    t.strictSame([payer.statusCode, payer.json().error.cause], [500, 'SERVER_FAILED'], `${number}: Authenticate Payer fails`);
    t.equal((await retrieve(f)).transaction.authenticationStatus, 'AUTHENTICATION_AVAILABLE', `${number}: the authentication as Initiate left it`);
    return;
  }
  const p = payer.json();
  if (status === 'AUTHENTICATION_UNAVAILABLE') {
    t.strictSame([p.transaction.authenticationStatus, p.authentication['3ds2'].transactionStatus], [status, undefined], `${number}: unavailable`);
    return checkPayment(t, f, number, false, number);
  }
  if (status === 'C') {
    t.strictSame([p.result, p.authentication['3ds2'].transactionStatus], ['PENDING', 'C'], `${number}: a challenge`);
    const { back } = await answerChallenge(app, p.authentication.redirect.html, { selectAuthResult: 'AUTHENTICATED' });
    t.equal(back.result, 'SUCCESS', `${number}: the challenge passed`);
    const after = await retrieve(f);
    t.strictSame([after.authentication['3ds'].acsEci, after.authentication['3ds'].authenticationToken], [challengeEci(brand, true), CHALLENGE_TOKEN], `${number}: ECI and token`);
    return checkPayment(t, f, number, true, number);
  }
  t.strictSame([p.authentication['3ds2'].transactionStatus, p.authentication['3ds2'].statusReasonCode], [status, cell(reason)], `${number}: transStatus and reason`);
  t.strictSame([p.authentication['3ds']?.acsEci, p.authentication['3ds']?.authenticationToken], [cell(eci), cell(token)], `${number}: ECI and token`);
  return checkPayment(t, f, number, status === 'Y' || status === 'A' || status === 'I', number);
}

t.test("docs/triggers.md table '3DS test card': every test card of the emulator", async (t) => {
  const app = await buildTestApp(t);
  const rows = rowsOf(t, '3DS test card');
  for (const row of rows) await cardRow(t, app, row);
  t.strictSame(rows.map((r) => r[0]).sort(), TEST_CARDS.map((c) => c.number).sort(), 'the page lists every card the emulator knows, and only those');
});

/** The challenge page's form for a row of the answers table. */
function formOf(answer: string): Record<string, string> {
  if (answer === 'the code `123456`') return { otp: '123456', selectAuthResult: 'UNAUTHENTICATED' };
  if (answer === 'any other code') return { otp: '654321', selectAuthResult: 'AUTHENTICATED' };
  if (answer === 'the cancel button') return { cancel: '1', selectAuthResult: 'AUTHENTICATED' };
  return { selectAuthResult: cell(answer) ?? '' };
}

t.test("docs/triggers.md table 'challenge answer': the challenge page's answers", async (t) => {
  const app = await buildTestApp(t);
  for (const [answer = '', status, cancel, eciMastercard, eciOthers, token] of rowsOf(t, 'challenge answer')) {
    for (const [number, eci] of [['5123450000000008', eciMastercard], ['4440000009900010', eciOthers]] as const) {
      const f = newFlow(app);
      await put(f, 'a1', initiateBody(cardSource(number)));
      const payer = (await put(f, 'a1', authenticateBody())).json();
      await answerChallenge(app, payer.authentication.redirect.html, formOf(answer));
      const a = (await retrieve(f)).authentication;
      const what = `${answer} on ${number}`;
      t.strictSame([a['3ds2'].transactionStatus, a['3ds2'].challengeCancel], [cell(status), cell(cancel)], `${what}: transStatus, challengeCancel`);
      t.strictSame([a['3ds']?.acsEci, a['3ds']?.authenticationToken], [cell(eci), cell(token)], `${what}: ECI and token`);
    }
  }
});

/** How each status of the table is reached: the card, and whether Authenticate Payer follows Initiate. */
const REACH: Record<string, [number: string, step: 'initiate' | 'payer']> = {
  AUTHENTICATION_AVAILABLE: ['5123456789012346', 'initiate'],
  AUTHENTICATION_NOT_SUPPORTED: ['5111111111111118', 'initiate'],
  AUTHENTICATION_PENDING: ['5123450000000008', 'payer'],
  AUTHENTICATION_SUCCESSFUL: ['5123456789012346', 'payer'],
  AUTHENTICATION_ATTEMPTED: ['5500005555555559', 'payer'],
  AUTHENTICATION_EXEMPT: ['5000000000000000005', 'payer'],
  AUTHENTICATION_FAILED: ['6201080999990423', 'payer'],
  AUTHENTICATION_REJECTED: ['5506900140100503', 'payer'],
  AUTHENTICATION_UNAVAILABLE: ['6201080999990852', 'payer'],
};

t.test("docs/triggers.md table 'authentication status': each status's answer and what a payment naming it gets", async (t) => {
  const app = await buildTestApp(t);
  for (const [status = '', , result, gatewayCode, recommendation, orderStatus, payment = ''] of rowsOf(t, 'authentication status')) {
    const reach = REACH[status];
    if (!reach) { t.fail(`no way to reach ${status}`); continue; }
    const [number, step] = reach;
    const f = newFlow(app);
    let answer = await put(f, 'a1', initiateBody(cardSource(number)));
    if (step === 'payer') answer = await put(f, 'a1', authenticateBody());
    const a = answer.json();
    t.strictSame([a.transaction.authenticationStatus, a.order.authenticationStatus, a.result, a.response.gatewayCode, a.response.gatewayRecommendation, a.order.status],
      [status, status, result, gatewayCode, recommendation, orderStatus], `${status}: the answer`);
    const pay = (await put(f, 'p1', payBody('a1', cardSource(number)))).json();
    const goesOn = payment.startsWith('goes on');
    t.equal(pay.response.gatewayCode, goesOn ? 'APPROVED' : payment.split(', ')[0], `${status}: the payment`);
    t.equal(pay.result, goesOn ? 'SUCCESS' : 'FAILURE', `${status}: its result`);
    t.equal(pay.transaction.authenticationStatus, status, `${status}: the payment shows the authentication's status`);
    if (goesOn) t.equal(pay.risk.response.rule[0].data, payment.endsWith('no liability shift') ? 'NO_LIABILITY_SHIFT' : 'LIABILITY_SHIFT', `${status}: liability shift`);
  }
});
