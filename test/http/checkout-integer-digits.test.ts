// Initiate Checkout reads interaction.timeout and paymentLink.numberOfAllowedAttempts sent as a
// string of digits as that integer, as Mastercard's Magento module sends them (its settings are
// strings: "600", "3"); the integer's bounds apply the same, and other text is refused.
import t from 'tap';
import { basic, buildTestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/poll.js';
import { expectInvalid } from './http.fixture.js';
import { checkoutBody, initiate } from './hosted-checkout.fixture.js';

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString().replace(/\.[0-9]+Z$/, '.000Z');
const link = (attempts: unknown) => checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { expiryDateTime: inAWeek(), numberOfAllowedAttempts: attempts } });

t.test('paymentLink.numberOfAllowedAttempts and interaction.timeout as digits', async (t) => {
  const a = await buildTestApp(t);
  const made = await initiate(a, link('3'));
  t.equal(made.statusCode, 201, made.body);
  t.equal(made.json().paymentLink.numberOfAllowedAttempts, 3, 'the link allows 3 attempts, answered as a number');
  const timed = await initiate(a, checkoutBody({}, { timeout: '600' }));
  t.equal(timed.statusCode, 201, timed.body);
  expectInvalid(t, await initiate(a, link('26')), { field: 'paymentLink.numberOfAllowedAttempts', validationType: 'INVALID' }, '26 attempts: above 25, as 26 is');
  expectInvalid(t, await initiate(a, link('3.5')), { field: 'paymentLink.numberOfAllowedAttempts' }, 'not digits');
  expectInvalid(t, await initiate(a, checkoutBody({}, { timeout: '30' })), { field: 'interaction.timeout' }, '30 seconds: below 60, as 30 is');
  expectInvalid(t, await initiate(a, checkoutBody({}, { timeout: 'ten minutes' })), { field: 'interaction.timeout' }, 'words');
});

t.test('leading zeros: digits whose value is in range are taken however many zeros lead (up to 32 characters), too large still refused', async (t) => {
  const a = await buildTestApp(t);
  for (const timeout of ['0000000600', '0600', `${'0'.repeat(29)}600`, '00000086400']) {
    const made = await initiate(a, checkoutBody({}, { timeout }));
    t.equal(made.statusCode, 201, `${JSON.stringify(timeout)}: ${made.body}`);
  }
  const attempts = await initiate(a, link('00000000003'));
  t.equal(attempts.statusCode, 201, attempts.body);
  t.equal(attempts.json().paymentLink.numberOfAllowedAttempts, 3, 'numberOfAllowedAttempts "00000000003": 3');
  // Above the bound: the integer's answer, the value named.
  const large = expectInvalid(t, await initiate(a, checkoutBody({}, { timeout: '0000086401' })), { field: 'interaction.timeout', validationType: 'INVALID' }, '86401 with zeros');
  t.equal(large.error.explanation, "Value '86401' is invalid.", 'as the integer 86401 is');
  for (const timeout of ['00001000000000', `${'0'.repeat(30)}600`, `${'0'.repeat(50_000)}600`]) {
    expectInvalid(t, await initiate(a, checkoutBody({}, { timeout })), { field: 'interaction.timeout', validationType: 'INVALID' }, `${timeout.length} characters`);
  }
});

t.test('digit strings as an attacker sends them: 400 on the member, never a 500, never read as another number', async (t) => {
  const a = await buildTestApp(t);
  for (const timeout of ['1e309', '0000000000000000003', '99999999999999999999999', ' 600', '600 ', '-600', '+600', '６００', '0x258', '600.0', '', 'Infinity', 'NaN']) {
    expectInvalid(t, await initiate(a, checkoutBody({}, { timeout })), { field: 'interaction.timeout', validationType: 'INVALID' }, JSON.stringify(timeout));
  }
  for (const timeout of [[], {}, true, -1, 1e300]) {
    expectInvalid(t, await initiate(a, checkoutBody({}, { timeout })), { field: 'interaction.timeout' }, JSON.stringify(timeout));
  }
  // null counts as not sent (docs/operations.md, "Errors"): the default timeout.
  t.equal((await initiate(a, checkoutBody({}, { timeout: null }))).statusCode, 201, 'null: as not sent');
  expectInvalid(t, await initiate(a, link([])), { field: 'paymentLink.numberOfAllowedAttempts' }, 'attempts as a list');
  expectInvalid(t, await initiate(a, checkoutBody({ paymentLink: { numberOfAllowedAttempts: '3' } })), { field: 'paymentLink', validationType: 'UNSUPPORTED' }, 'digits without PAYMENT_LINK');
});

t.test('the request journal shows the digits as sent, a string, where the gateway read an integer', async (t) => {
  const a = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const made = await initiate(a, link('3'));
  t.equal(made.statusCode, 201, made.body);
  const entry = await waitFor(
    () => a.inject({ method: 'GET', url: `/admin/api/requests/${encodeURIComponent(String(made.headers['x-request-id']))}`, headers: { authorization: basic('admin', 'admin-password-for-tests') } }),
    'the journal entry', { until: (r) => r.statusCode === 200, intervalMs: 20 },
  );
  const request = (entry.json() as { request: { paymentLink: { numberOfAllowedAttempts: unknown } } }).request;
  t.equal(request.paymentLink.numberOfAllowedAttempts, '3', 'the attempts as sent: the string "3"');
});
