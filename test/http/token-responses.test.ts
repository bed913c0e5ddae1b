// Issue 3, item 6: response rules of Create or Update Token: what is echoed and never stored,
// card-number masking (6.4, or the merchant's stricter 0.4), UNMASK with Basic authentication
// (answered masked), and verification: BASIC without transaction.currency, the acquirer's
// EXTERNAL_VERIFICATION_* with it, chosen by the test-card rules of payments.
import t from 'tap';
import { M1, UNIQUE } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';
import { MASK04, app, card, create, retrieve, storeText, typesOf } from './token-api.fixture.js';

t.test('name on card, billing, customer and correlationId are echoed, never stored', async (t) => {
  const a = await app(t);
  const res = await create(a, M1, {
    correlationId: 'corr-never-stored-42',
    billing: { address: { street: 'Billing Street 77', city: 'Billington', country: 'USA', stateProvinceCode: 'NY' } },
    customer: { email: 'never.stored@example.com', firstName: 'Nev', phone: '+1 2125551234' },
    device: { ipAddress: '2001:db8::1' },
    sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39', { nameOnCard: 'Name Never Stored', securityCode: '100' }) } },
  });
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  t.equal(body.correlationId, 'corr-never-stored-42');
  t.equal(body.sourceOfFunds.provided.card.nameOnCard, 'Name Never Stored');
  t.equal(body.customer.email, 'never.stored@example.com');
  t.equal(body.billing.address.street, 'Billing Street 77');
  t.equal(body.device.ipAddress, '2001:db8::1');
  const events = await storeText(a);
  for (const value of ['corr-never-stored-42', 'Name Never Stored', 'never.stored@example.com', 'Billing Street 77', '"securityCode"']) {
    t.notMatch(events, value, `${value} is in no event`);
  }
  const got = (await retrieve(a, M1, body.token)).json();
  t.notOk('nameOnCard' in got.sourceOfFunds.provided.card, 'nor in the retrieved token');
  t.notOk('billing' in got || 'customer' in got);
});

t.test("masking: 6.4 by default, the merchant's stricter 0.4 when set, in creation and retrieval", async (t) => {
  const a = await app(t);
  const six = (await create(a, M1, { sourceOfFunds: { type: 'CARD', provided: { card: card('4508750015741019') } } })).json();
  t.equal(six.sourceOfFunds.provided.card.number, '450875xxxxxx1019');
  const res = await create(a, MASK04, { sourceOfFunds: { type: 'CARD', provided: { card: card('4508750015741019') } } });
  t.equal(res.json().sourceOfFunds.provided.card.number, 'xxxxxxxxxxxx1019');
  t.notMatch(res.body, '450875', 'not even the first six digits');
  t.equal((await retrieve(a, MASK04, res.json().token)).json().sourceOfFunds.provided.card.number, 'xxxxxxxxxxxx1019');
});

t.test('UNMASK with Basic authentication is answered masked (unmasking needs certificate authentication)', async (t) => {
  const a = await app(t);
  const res = await create(a, M1, { responseControls: { sensitiveData: 'UNMASK' }, sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008') } } });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  t.notMatch(res.body, '5123450000000008');
  const achRes = await create(a, M1, { responseControls: { sensitiveData: 'UNMASK' }, sourceOfFunds: { type: 'ACH', provided: { ach: { accountType: 'CONSUMER_CHECKING', bankAccountHolder: 'J', bankAccountNumber: '123456789', routingNumber: '021000021', secCode: 'PPD' } } } });
  t.equal(achRes.json().sourceOfFunds.provided.ach.bankAccountNumber, 'xxxxx6789');
});

t.test('verification: BASIC without transaction.currency, the acquirer with it (expiry and CSC tables)', async (t) => {
  const a = await app(t);
  const basic = (await create(a, M1, { sourceOfFunds: { type: 'CARD', provided: { card: card() } } })).json();
  t.equal(basic.response.gatewayCode, 'BASIC_VERIFICATION_SUCCESSFUL');
  t.equal(basic.verificationStrategy, 'BASIC');
  const cases: Array<[string, string, string | undefined, string]> = [
    ['1', '39', undefined, 'EXTERNAL_VERIFICATION_SUCCESSFUL'],
    ['1', '39', '100', 'EXTERNAL_VERIFICATION_SUCCESSFUL'],
    ['1', '39', '102', 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC'],
    ['5', '39', undefined, 'EXTERNAL_VERIFICATION_DECLINED'],
    ['4', '27', undefined, 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD'],
    ['8', '28', undefined, 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
    ['1', '37', undefined, 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
    ['5', '37', undefined, 'EXTERNAL_VERIFICATION_PROCESSING_ERROR'],
    ['1', '38', undefined, 'EXTERNAL_VERIFICATION_DECLINED'],
    ['6', '38', undefined, 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC'],
    ['1', '36', undefined, 'EXTERNAL_VERIFICATION_BLOCKED'],
    ['7', '36', undefined, 'EXTERNAL_VERIFICATION_DECLINED_AUTHENTICATION_REQUIRED'],
    ['12', '33', undefined, 'EXTERNAL_VERIFICATION_SUCCESSFUL'],
  ];
  for (const [month, year, securityCode, gatewayCode] of cases) {
    const before = (await typesOf(a)).length;
    const extra = securityCode ? { securityCode } : {};
    const res = await create(a, M1, { transaction: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', month, year, extra) } } });
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    const what = `${month}/${year} CSC ${securityCode ?? 'none'}`;
    t.equal(body.response.gatewayCode, gatewayCode, what);
    t.equal(body.verificationStrategy, 'ACQUIRER', `${what}: ACQUIRER`);
    const success = gatewayCode === 'EXTERNAL_VERIFICATION_SUCCESSFUL';
    t.equal(body.result, success ? 'SUCCESS' : 'FAILURE', `${what}: result`);
    t.equal('token' in body, success, `${what}: a token only when verified`);
    t.equal((await typesOf(a)).length, before + (success ? 1 : 0), `${what}: ${success ? 'stored' : 'nothing stored'}`);
  }
  const amex = await create(a, M1, { transaction: { currency: 'EUR' }, sourceOfFunds: { type: 'CARD', provided: { card: card('345678901234564', '1', '39', { securityCode: '1020' }) } } });
  t.equal(amex.json().response.gatewayCode, 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC', 'American Express: 1020 is NO_MATCH');
  expectInvalid(t, await create(a, M1, { transaction: { currency: 'XYZ' }, sourceOfFunds: { type: 'CARD', provided: { card: card() } } }),
    { field: 'transaction.currency', validationType: 'UNSUPPORTED' }, 'an unknown currency');
});

t.test('a declined verification leaves an existing token of a unique-card repository unchanged', async (t) => {
  const a = await app(t);
  const first = (await create(a, UNIQUE, { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39') } } })).json();
  const declined = (await create(a, UNIQUE, { transaction: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '5', '39') } } })).json();
  t.equal(declined.result, 'FAILURE');
  t.equal((await retrieve(a, UNIQUE, first.token)).json().sourceOfFunds.provided.card.expiry, '0139', 'not updated');
  const verified = (await create(a, UNIQUE, { transaction: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '2', '39') } } })).json();
  t.equal(verified.token, first.token);
  t.equal(verified.verificationStrategy, 'ACQUIRER');
  t.equal((await retrieve(a, UNIQUE, first.token)).json().verificationStrategy, 'ACQUIRER', 'the update records the verification');
});
