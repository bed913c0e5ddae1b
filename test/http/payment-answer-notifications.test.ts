// The webhook notification of a payment without 3-D Secure says what its answer said, in the
// version of its request: authenticationStatus AUTHENTICATION_NOT_IN_EFFECT from version 50 (none
// at 46), authorizationResponse at both.
import t from 'tap';
import { buildApp } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { M1, MERCHANTS, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { startReceiver } from '../helpers/receiver.js';

process.env.NOTIFICATION_RETRY_DELAY_MS = '20';

t.test('a PAY at version 56 and one at 46: each notification is its answer', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const merchants = {
    merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id
      ? { ...m, notifications: { url: `${receiver.origin}/hooks/main`, secret: 'notification-secret-0123456789abcdef-NIE', allowedUrls: [`${receiver.origin}/hooks/`] } }
      : m)),
  };
  const app = await buildApp({ eventStore: { kind: 'memory' }, merchants: parseMerchants(merchants, 'test'), limits: { authFailureLimit: 1_000_000 } });
  t.teardown(() => app.close());
  const answers = new Map<string, Record<string, any>>();
  for (const version of [56, 46]) {
    const order = uniqueId();
    const res = await app.inject({
      method: 'PUT', url: `/api/rest/version/${version}/merchant/${M1.id}/order/${order}/transaction/1`, headers: { authorization: tokenAuth(M1) },
      payload: {
        apiOperation: 'PAY', order: { amount: '10.00', currency: 'USD', notificationUrl: `${receiver.origin}/hooks/pay` },
        sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: 1, year: '39' } } } },
      },
    });
    t.equal(res.statusCode, 201, res.body);
    answers.set(order, res.json());
  }
  const hits = await receiver.waitFor(2);
  t.strictSame(hits.map((h) => (JSON.parse(h.body) as { version: string }).version).sort(), ['46', '56'], 'one notification of each');
  for (const hit of hits) {
    const body = JSON.parse(hit.body) as Record<string, any>;
    const answer = answers.get(body.order.id);
    t.ok(answer, `the notification of order ${body.order.id}`);
    t.strictSame(body.authorizationResponse, answer?.authorizationResponse, `version ${body.version}: authorizationResponse as answered`);
    t.equal(body.transaction.authenticationStatus, answer?.transaction.authenticationStatus, `version ${body.version}: authenticationStatus as answered`);
    t.equal(body.transaction.authenticationStatus, body.version === '56' ? 'AUTHENTICATION_NOT_IN_EFFECT' : undefined, `version ${body.version}`);
    t.equal(body.sourceOfFunds.provided.card.expiry.month, '1', 'the month sent as a number: its digits');
  }
});
