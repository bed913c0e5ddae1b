// Update Session holds the authentication.* fields a 3-D Secure flow needs (channel, purpose,
// acceptVersions, redirectResponseUrl, transactionId), as the 3DS JavaScript integration keeps them
// in the session: Initiate Authentication, Authenticate Payer and the PAY that name only the
// session are answered as if they had sent them, the request's own fields winning. A PAY whose
// session names a failed authentication is refused like one that names it itself.
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { expectInvalid, type App } from './http.fixture.js';
import { answerChallenge, formAction, newFlow, put, RETURN_URL, transactionUrl } from './three-d-secure.fixture.js';
import { CHALLENGE_CODE, TEST_CARDS } from '../../domain/order/authentication-cards.js';

const CHALLENGE = TEST_CARDS.find((c) => c.brand === 'Mastercard' && c.behaviour.kind === 'challenge')!.number;
const FRICTIONLESS = TEST_CARDS.find((c) => c.brand === 'Mastercard' && c.behaviour.kind === 'frictionless' && c.behaviour.status === 'Y')!.number;
const sessionUrl = (id = '') => `/api/rest/version/100/merchant/${M1.id}/session${id ? `/${id}` : ''}`;
const headers = { authorization: tokenAuth(M1) };

async function newSession(app: App): Promise<string> {
  return (await app.inject({ method: 'POST', url: sessionUrl(), headers })).json().session.id as string;
}
const update = (app: App, id: string, payload: object) => app.inject({ method: 'PUT', url: sessionUrl(id), headers, payload });

/** A session holding the card, the order and what 3-D Secure needs. */
async function threeDsSession(app: App, number: string): Promise<string> {
  const id = await newSession(app);
  const updated = await update(app, id, {
    authentication: { acceptVersions: '3DS2', channel: 'PAYER_BROWSER', purpose: 'PAYMENT_TRANSACTION', redirectResponseUrl: RETURN_URL },
    order: { amount: '30.00', currency: 'USD' },
    sourceOfFunds: { provided: { card: { number, expiry: { month: '1', year: '39' } } } },
  });
  if (updated.statusCode !== 200) throw new Error(`Update Session: ${updated.body}`);
  return id;
}

t.test('Update Session holds authentication.*: answered and retrieved', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const updated = await update(app, id, { authentication: { channel: 'PAYER_BROWSER', redirectResponseUrl: RETURN_URL } });
  t.equal(updated.statusCode, 200, updated.body);
  t.strictSame(updated.json().authentication, { channel: 'PAYER_BROWSER', redirectResponseUrl: RETURN_URL });
  // Each field replaces the one held; the others stay.
  const again = await update(app, id, { authentication: { transactionId: 'a1', channel: 'MERCHANT_REQUESTED' } });
  t.strictSame(again.json().authentication, { channel: 'MERCHANT_REQUESTED', redirectResponseUrl: RETURN_URL, transactionId: 'a1' });
  const retrieved = await app.inject({ method: 'GET', url: sessionUrl(id), headers });
  t.strictSame(retrieved.json().authentication, { channel: 'MERCHANT_REQUESTED', redirectResponseUrl: RETURN_URL, transactionId: 'a1' });
});

t.test('Update Session refuses bad authentication.* with the gateway\'s error, holding nothing', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  expectInvalid(t, await update(app, id, { authentication: { channel: 'BY_PIGEON' } }), { field: 'authentication.channel', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, { authentication: { purpose: 'FUN' } }), { field: 'authentication.purpose', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, { authentication: { acceptVersions: '3DS9' } }), { field: 'authentication.acceptVersions', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, { authentication: { redirectResponseUrl: 'javascript:alert(1)' } }), { field: 'authentication.redirectResponseUrl', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, { authentication: { transactionId: 'x'.repeat(41) } }), { field: 'authentication.transactionId', validationType: 'INVALID' });
  const retrieved = await app.inject({ method: 'GET', url: sessionUrl(id), headers });
  t.equal(retrieved.json().authentication, undefined, 'nothing held');
  t.equal(retrieved.json().session.updateStatus, 'NO_UPDATE');
});

t.test('3-D Secure with only session.id: Initiate, Authenticate Payer, the challenge, then a PAY whose session names the authentication', async (t) => {
  const app = await buildTestApp(t);
  const f = newFlow(app);
  const session = await threeDsSession(app, CHALLENGE);
  const initiated = await put(f, 'a1', { apiOperation: 'INITIATE_AUTHENTICATION', session: { id: session } });
  t.equal(initiated.statusCode, 201, initiated.body);
  t.match(initiated.json(), { authentication: { channel: 'PAYER_BROWSER', purpose: 'PAYMENT_TRANSACTION', version: '3DS2' }, order: { currency: 'USD' } },
    'the channel and currency the session holds');
  const payer = await put(f, 'a1', { apiOperation: 'AUTHENTICATE_PAYER', session: { id: session } });
  t.equal(payer.json().result, 'PENDING', payer.body);
  t.equal(payer.json().order.amount, 30, 'the amount the session holds');
  const { back, backTo } = await answerChallenge(app, payer.json().authentication.redirect.html, { otp: CHALLENGE_CODE });
  t.equal(backTo, RETURN_URL, 'the browser goes back to the redirectResponseUrl the session holds');
  t.equal(back.result, 'SUCCESS');

  t.equal((await update(app, session, { authentication: { transactionId: 'a1' } })).statusCode, 200);
  const paid = await put(f, 'p1', { apiOperation: 'PAY', session: { id: session } });
  t.equal(paid.statusCode, 201, paid.body);
  t.equal(paid.json().response.gatewayCode, 'APPROVED');
  t.match(paid.json().authentication, { transactionId: 'a1', version: '3DS2', '3ds2': { transactionStatus: 'Y' } }, 'the PAY used the session\'s authentication');
  t.equal(paid.json().order.authenticationStatus, 'AUTHENTICATION_SUCCESSFUL');
});

t.test('a PAY whose session names a failed authentication is refused, never APPROVED; the request\'s own transactionId wins', async (t) => {
  const app = await buildTestApp(t);
  const f = newFlow(app);
  const session = await threeDsSession(app, CHALLENGE);
  await put(f, 'a1', { apiOperation: 'INITIATE_AUTHENTICATION', session: { id: session } });
  const payer = await put(f, 'a1', { apiOperation: 'AUTHENTICATE_PAYER', session: { id: session } });
  const { back } = await answerChallenge(app, payer.json().authentication.redirect.html, { otp: '000000' });
  t.equal(back.result, 'FAILURE', 'the payer failed the challenge');
  await update(app, session, { authentication: { transactionId: 'a1' } });
  const refused = await put(f, 'p1', { apiOperation: 'PAY', session: { id: session } });
  t.strictSame([refused.json().result, refused.json().response.gatewayCode, refused.json().order.totalCapturedAmount], ['FAILURE', 'AUTHENTICATION_FAILED', 0]);
  t.equal(refused.json().authentication.transactionId, 'a1');

  // Another authentication, frictionless and successful, named by the request itself: it wins.
  const ok = newFlow(app);
  const card = { provided: { card: { number: FRICTIONLESS, expiry: { month: '1', year: '39' } } } };
  await put(ok, 'b1', { apiOperation: 'INITIATE_AUTHENTICATION', session: { id: session }, sourceOfFunds: card });
  await put(ok, 'b1', { apiOperation: 'AUTHENTICATE_PAYER', session: { id: session }, sourceOfFunds: card });
  const named = await put(ok, 'p1', { apiOperation: 'PAY', session: { id: session }, sourceOfFunds: card, authentication: { transactionId: 'b1' } });
  t.strictSame([named.json().response.gatewayCode, named.json().authentication.transactionId], ['APPROVED', 'b1']);
  // Without its own, the same order's PAY takes the session's a1, which is not on this order.
  const other = await put(ok, 'p2', { apiOperation: 'PAY', session: { id: session }, sourceOfFunds: card });
  expectInvalid(t, other, { field: 'authentication.transactionId' }, 'the session\'s authentication of another order');
  const retrieved = await app.inject({ method: 'GET', url: transactionUrl(ok.orderId, 'p2'), headers });
  t.not(retrieved.statusCode, 200, 'no payment recorded');
});

t.test('a token request naming a session that holds authentication.* still stores the card', async (t) => {
  const app = await buildTestApp(t);
  const session = await threeDsSession(app, FRICTIONLESS);
  const token = await app.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/token`, headers, payload: { session: { id: session } } });
  t.equal(token.statusCode, 201, token.body);
  t.equal(token.json().sourceOfFunds.provided.card.number, '512345xxxxxx2346');
});

t.test('the redirect HTML of a session-held URL is the URL as held, escaped', async (t) => {
  const app = await buildTestApp(t);
  const f = newFlow(app);
  const session = await threeDsSession(app, FRICTIONLESS);
  const url = 'https://shop.example/3ds/return?cart=1&step="2"';
  await update(app, session, { authentication: { redirectResponseUrl: url } });
  await put(f, 'a1', { apiOperation: 'INITIATE_AUTHENTICATION', session: { id: session } });
  const payer = await put(f, 'a1', { apiOperation: 'AUTHENTICATE_PAYER', session: { id: session } });
  t.equal(payer.json().result, 'SUCCESS', payer.body);
  t.equal(formAction(payer.json().authentication.redirect.html), new URL(url).href, 'the frictionless form posts back to the session\'s URL');
});
