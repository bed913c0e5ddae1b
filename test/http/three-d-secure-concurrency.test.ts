// A property through HTTP: on a challenge card, PAYs naming the authentication race with the
// payer's answer on the challenge page (and its double submit, and repeats of Authenticate Payer);
// identical PAY retries race each other. Whatever the interleaving: a PAY is APPROVED only if the
// challenge was passed before it was decided, and then carries transStatus Y; identical retries
// all get the one answer; the order's totals are exactly the approved PAYs'.
import fc from 'fast-check';
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { CHALLENGE_OPTIONS } from '../../domain/order/authentication-cards.js';
import { answerChallenge, authenticate, authenticateBody, cardSource, newFlow, payBody, put } from './three-d-secure.fixture.js';

const CARD = '5123450000000008';

t.test('property: PAYs racing the challenge are approved only on a passed one; identical retries answer the same', async (t) => {
  const app = await buildTestApp(t);
  const scenario = fc.record({
    answer: fc.constantFrom(...CHALLENGE_OPTIONS),
    doubleSubmit: fc.boolean(),
    retries: fc.integer({ min: 1, max: 4 }),
    others: fc.integer({ min: 0, max: 3 }),
    payerRepeats: fc.integer({ min: 0, max: 2 }),
  });
  await fc.assert(fc.asyncProperty(scenario, async ({ answer, doubleSubmit, retries, others, payerRepeats }) => {
    const f = newFlow(app);
    const { payer } = await authenticate(f, CARD);
    const html = payer.json().authentication.redirect.html as string;
    const same = payBody('a1', cardSource(CARD));
    const answers = Array.from({ length: doubleSubmit ? 2 : 1 }, () => answerChallenge(app, html, { selectAuthResult: answer }));
    const [retried, distinct, repeatedPayer] = await Promise.all([
      Promise.all(Array.from({ length: retries }, () => put(f, 'p1', same))),
      Promise.all(Array.from({ length: others }, (_, i) => put(f, `p${i + 2}`, payBody('a1', cardSource(CARD))))),
      Promise.all(Array.from({ length: payerRepeats }, () => put(f, 'a1', authenticateBody()))),
      Promise.all(answers),
    ]);
    for (const res of [...retried, ...distinct, ...repeatedPayer]) if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`);
    if (new Set(retried.map((r) => r.body)).size !== 1) throw new Error('identical PAY retries answered differently');
    if (repeatedPayer.some((r) => r.body !== payer.body)) throw new Error('a repeat of Authenticate Payer answered differently');
    const passed = answer === 'AUTHENTICATED';
    let approved = 0;
    for (const pay of [retried[0]!, ...distinct].map((r) => r.json())) {
      if (pay.response.gatewayCode !== 'APPROVED') continue;
      approved++;
      if (!passed) throw new Error(`APPROVED after the challenge answer ${answer}`);
      if (pay.authentication['3ds2'].transactionStatus !== 'Y') throw new Error(`APPROVED with transStatus ${pay.authentication['3ds2'].transactionStatus}`);
    }
    const order = (await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${f.orderId}`, headers: { authorization: tokenAuth(M1) } })).json();
    if (order.totalCapturedAmount !== approved * 12.5) throw new Error(`captured ${order.totalCapturedAmount}, approved ${approved}`);
    const statuses = order.transaction.map((x: { transaction: { authenticationStatus?: string } }) => x.transaction.authenticationStatus);
    if (statuses[0] !== (passed ? 'AUTHENTICATION_SUCCESSFUL' : statuses[0]) || statuses.length !== 2 + others) throw new Error(`Retrieve Order: ${JSON.stringify(statuses)}`);
  }), { numRuns: 25 });
  t.pass('25 random races');
});
