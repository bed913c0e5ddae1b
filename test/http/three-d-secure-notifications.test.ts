// Webhook notifications of 3-D Secure (docs/notifications.md): each step of an authentication
// (Initiate Authentication, Authenticate Payer, the challenge answered) sends one, the
// authentication as Retrieve Transaction showed it then, in the version of its Initiate
// Authentication, to the order.notificationUrl that Initiate Authentication named; the payment that
// follows sends its own.
import t from 'tap';
import { buildApp } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { MERCHANTS, M1 } from '../helpers/app.js';
import { startReceiver } from '../helpers/receiver.js';
import { answerChallenge, authenticateBody, cardSource, initiateBody, newFlow, payBody, put } from './three-d-secure.fixture.js';

process.env.NOTIFICATION_RETRY_DELAY_MS = '20';

t.test('each authentication step sends a notification to the URL its Initiate Authentication named; then the payment', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const merchants = {
    merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id
      ? { ...m, notifications: { url: `${receiver.origin}/hooks/main`, secret: 'notification-secret-0123456789abcdef-3D', allowedUrls: [`${receiver.origin}/hooks/`] } }
      : m)),
  };
  const app = await buildApp({ eventStore: { kind: 'memory' }, merchants: parseMerchants(merchants, 'test'), limits: { authFailureLimit: 1_000_000 } });
  t.teardown(() => app.close());
  const f = newFlow(app, 72);
  const url = `${receiver.origin}/hooks/3ds`;
  const initiated = await put(f, 'a1', initiateBody(cardSource('5123450000000008'), { order: { currency: 'USD', notificationUrl: url } }));
  t.equal(initiated.statusCode, 201, initiated.body);
  const payer = await put(f, 'a1', authenticateBody());
  await answerChallenge(app, payer.json().authentication.redirect.html, { selectAuthResult: 'AUTHENTICATED' });
  await put(f, 'p1', payBody('a1', cardSource('5123450000000008')));
  const hits = await receiver.waitFor(4);
  t.strictSame(hits.map((h) => h.url), ['/hooks/3ds', '/hooks/3ds', '/hooks/3ds', '/hooks/3ds'], 'every notification to the order\'s URL');
  const bodies = hits.map((h) => JSON.parse(h.body) as { transaction: { id: string; type: string; authenticationStatus?: string }; version: string; result: string });
  // (Deliveries may overtake one another: compared in any order.)
  t.strictSame(bodies.map((b) => [b.transaction.id, b.transaction.type, b.transaction.authenticationStatus].join(' ')).sort(), [
    'a1 AUTHENTICATION AUTHENTICATION_AVAILABLE',
    'a1 AUTHENTICATION AUTHENTICATION_PENDING',
    'a1 AUTHENTICATION AUTHENTICATION_SUCCESSFUL',
    'p1 PAYMENT AUTHENTICATION_SUCCESSFUL',
  ], 'Initiate, Authenticate Payer, the challenge answered, the payment');
  t.strictSame(bodies.map((b) => b.version), ['72', '72', '72', '72'], 'in the version of the requests');
  t.notOk(hits.some((h) => h.body.includes('5123450000000008')), 'no card number');
  t.notOk(hits.some((h) => h.body.includes('<form')), 'no redirect HTML: the authentication as Retrieve Transaction shows it');
});
