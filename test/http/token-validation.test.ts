// Issue 3, item 7: every request field of Create or Update Token with the bounds and formats of
// the spec; each failure a 400 naming the field and the validation type.
import t from 'tap';
import { M1 } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';
import { app, card, create } from './token-api.fixture.js';

const cardSource = { type: 'CARD', provided: { card: card() } };
const withCard = (extra: Record<string, unknown>) => ({ sourceOfFunds: cardSource, ...extra });
const achOf = (ach: Record<string, unknown>) => ({ sourceOfFunds: { type: 'ACH', provided: { ach: { accountType: 'CONSUMER_CHECKING', bankAccountHolder: 'J', bankAccountNumber: '123456789', routingNumber: '021000021', secCode: 'PPD', ...ach } } } });
const ddcOf = (ddc: Record<string, unknown>) => ({ sourceOfFunds: { type: 'DIRECT_DEBIT_CANADA', provided: { directDebitCanada: { bankAccountHolder: 'J', bankAccountNumber: '1234567', financialInstitutionNumber: '001', transitNumber: '12345', ...ddc } } } });
const walletOf = (w: Record<string, unknown>, agreement: Record<string, unknown> = {}) => ({ sourceOfFunds: { type: 'WALLET', provided: { wallet: { billingAgreement: { cardinality: 'SINGLE', id: 'B-1', ...agreement }, ...w } } } });

type Case = [what: string, body: unknown, field: string, type?: 'INVALID' | 'MISSING' | 'UNSUPPORTED'];
const CASES: Case[] = [
  ['email without @', withCard({ customer: { email: 'plainaddress' } }), 'customer.email'],
  ['email of 3 characters', withCard({ customer: { email: 'a@b' } }), 'customer.email'],
  ['wallet email', walletOf({ accountEmail: 'a b@c.de' }), 'sourceOfFunds.provided.wallet.accountEmail'],
  // No address holds a control character (C0, DEL, C1) or a lone surrogate, ASCII or not.
  ['email with NUL', withCard({ customer: { email: 'jo\u0000@example.com' } }), 'customer.email'],
  ['email with a C0 control', withCard({ customer: { email: 'jo@exam\u001bple.com' } }), 'customer.email'],
  ['email ending in DEL', withCard({ customer: { email: 'jo@example.com\u007f' } }), 'customer.email'],
  ['email with a C1 control', withCard({ customer: { email: 'j\u0085o@example.com' } }), 'customer.email'],
  ['email with a lone surrogate', withCard({ customer: { email: 'jo\ud800@example.com' } }), 'customer.email'],
  ['wallet email with NUL', walletOf({ accountEmail: 'payer@exa\u0000mple.com' }), 'sourceOfFunds.provided.wallet.accountEmail'],
  ['wallet email with a control', walletOf({ accountEmail: 'pay\u0001er@example.com' }), 'sourceOfFunds.provided.wallet.accountEmail'],
  ['phone without +', withCard({ customer: { phone: '2125551234' } }), 'customer.phone'],
  ['phone without the space', withCard({ customer: { mobilePhone: '+12125551234' } }), 'customer.mobilePhone'],
  ['phone of 16 digits', withCard({ customer: { phone: '+1 234567890123456' } }), 'customer.phone'],
  ['phone with a letter', withCard({ customer: { phone: '+1 212a' } }), 'customer.phone'],
  ['IPv4 octet 256', withCard({ device: { ipAddress: '256.1.1.1' } }), 'device.ipAddress'],
  ['IPv6 with :::', withCard({ device: { ipAddress: '2001:db8:::1' } }), 'device.ipAddress'],
  ['IP too long', withCard({ device: { ipAddress: '1'.repeat(46) } }), 'device.ipAddress'],
  ['billing country not ISO', withCard({ billing: { address: { country: 'ZZZ' } } }), 'billing.address.country'],
  ['billing country lower case', withCard({ billing: { address: { country: 'usa' } } }), 'billing.address.country'],
  ['shipping country not ISO', withCard({ shipping: { address: { country: 'EUR' } } }), 'shipping.address.country'],
  ['subdivision of 4', withCard({ billing: { address: { stateProvinceCode: 'ABCD' } } }), 'billing.address.stateProvinceCode'],
  ['subdivision lower case', withCard({ billing: { address: { stateProvinceCode: 'ny' } } }), 'billing.address.stateProvinceCode'],
  ['subdivision with hyphen', withCard({ billing: { address: { stateProvinceCode: 'U-N' } } }), 'billing.address.stateProvinceCode'],
  ['postcode with #', withCard({ billing: { address: { postcodeZip: '12#45' } } }), 'billing.address.postcodeZip'],
  ['street of 101', withCard({ billing: { address: { street: 'a'.repeat(101) } } }), 'billing.address.street'],
  ['company of 101', withCard({ billing: { address: { company: 'a'.repeat(101) } } }), 'billing.address.company'],
  ['stateProvince of 21', withCard({ billing: { address: { stateProvince: 'a'.repeat(21) } } }), 'billing.address.stateProvince'],
  ['shipping has no company', withCard({ shipping: { address: { company: 'X' } } }), 'shipping.address.company', 'UNSUPPORTED'],
  ['shipping contact of 51', withCard({ shipping: { contact: { firstName: 'a'.repeat(51) } } }), 'shipping.contact.firstName'],
  ['origin postcode of 11', withCard({ shipping: { origin: { postcodeZip: '1'.repeat(11) } } }), 'shipping.origin.postcodeZip'],
  ['customer first name of 51', withCard({ customer: { firstName: 'a'.repeat(51) } }), 'customer.firstName'],
  ['tax id of 31', withCard({ customer: { taxRegistrationId: 'a'.repeat(31) } }), 'customer.taxRegistrationId'],
  ['correlationId of 101', withCard({ correlationId: 'a'.repeat(101) }), 'correlationId'],
  ['referenceOrderId of 41', withCard({ referenceOrderId: '1'.repeat(41) }), 'referenceOrderId'],
  ['sensitiveData of 51', withCard({ responseControls: { sensitiveData: 'U'.repeat(51) } }), 'responseControls.sensitiveData'],
  ['provisioning mode', withCard({ schemeTokenProvisioningMode: 'LATER' }), 'schemeTokenProvisioningMode'],
  ['session.id of 30', withCard({ session: { id: 'S'.repeat(30) } }), 'session.id'],
  ['session.id of 36', withCard({ session: { id: 'S'.repeat(36) } }), 'session.id'],
  ['session.id not ASCII', withCard({ session: { id: `${'S'.repeat(30)}é` } }), 'session.id'],
  ['session.version of 9', withCard({ session: { version: '123456789' } }), 'session.version'],
  ['serial number not ASCII', withCard({ posTerminal: { serialNumber: 'ü' } }), 'posTerminal.serialNumber'],
  ['sub-merchant identifier character', withCard({ subMerchant: { identifier: 'a/b' } }), 'subMerchant.identifier'],
  ['sub-merchant without identifier', withCard({ subMerchant: {} }), 'subMerchant.identifier', 'MISSING'],
  ['currency lower case', withCard({ transaction: { currency: 'usd' } }), 'transaction.currency'],
  ['type', { sourceOfFunds: { type: 'BANK' } }, 'sourceOfFunds.type'],
  ['token character', { sourceOfFunds: { type: 'CARD', token: '9000-1' } }, 'sourceOfFunds.token'],
  ['provisioning identifier of 65', { sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: 'a'.repeat(65) } }, 'sourceOfFunds.schemeTokenProvisioningIdentifier'],
  ['card number of 8', { sourceOfFunds: { type: 'CARD', provided: { card: card('12345674') } } }, 'sourceOfFunds.provided.card.number'],
  ['card number of 20', { sourceOfFunds: { type: 'CARD', provided: { card: card('5'.repeat(20)) } } }, 'sourceOfFunds.provided.card.number'],
  ['card number with a space', { sourceOfFunds: { type: 'CARD', provided: { card: card('5123 4500 0000 0008') } } }, 'sourceOfFunds.provided.card.number'],
  ['month 13', { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '13') } } }, 'sourceOfFunds.provided.card.expiry.month'],
  ['year of 4 digits', { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '2039') } } }, 'sourceOfFunds.provided.card.expiry.year'],
  ['security code of 5', { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39', { securityCode: '12345' }) } } }, 'sourceOfFunds.provided.card.securityCode'],
  ['name on card of 257', { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39', { nameOnCard: 'a'.repeat(257) }) } } }, 'sourceOfFunds.provided.card.nameOnCard'],
  ['ACH account type', achOf({ accountType: 'BUSINESS' }), 'sourceOfFunds.provided.ach.accountType'],
  ['ACH holder of 29', achOf({ bankAccountHolder: 'a'.repeat(29) }), 'sourceOfFunds.provided.ach.bankAccountHolder'],
  ['ACH account number of 18', achOf({ bankAccountNumber: '1'.repeat(18) }), 'sourceOfFunds.provided.ach.bankAccountNumber'],
  ['ACH account number character', achOf({ bankAccountNumber: '1234*5678' }), 'sourceOfFunds.provided.ach.bankAccountNumber'],
  ['ACH routing number of 8', achOf({ routingNumber: '12345678' }), 'sourceOfFunds.provided.ach.routingNumber'],
  ['ACH routing number letters', achOf({ routingNumber: '02100002A' }), 'sourceOfFunds.provided.ach.routingNumber'],
  ['ACH SEC code', achOf({ secCode: 'CCD' }), 'sourceOfFunds.provided.ach.secCode'],
  ['DDC account type', ddcOf({ accountType: 'CORPORATE_CHECKING' }), 'sourceOfFunds.provided.directDebitCanada.accountType'],
  ['DDC account number of 6', ddcOf({ bankAccountNumber: '123456' }), 'sourceOfFunds.provided.directDebitCanada.bankAccountNumber'],
  ['DDC account number of 13', ddcOf({ bankAccountNumber: '1'.repeat(13) }), 'sourceOfFunds.provided.directDebitCanada.bankAccountNumber'],
  ['DDC institution of 4', ddcOf({ financialInstitutionNumber: '0012' }), 'sourceOfFunds.provided.directDebitCanada.financialInstitutionNumber'],
  ['DDC transit letters', ddcOf({ transitNumber: '1234A' }), 'sourceOfFunds.provided.directDebitCanada.transitNumber'],
  ['DDC without holder', { sourceOfFunds: { type: 'DIRECT_DEBIT_CANADA', provided: { directDebitCanada: { bankAccountNumber: '1234567', financialInstitutionNumber: '001', transitNumber: '12345' } } } }, 'sourceOfFunds.provided.directDebitCanada.bankAccountHolder', 'MISSING'],
  ['wallet holder of 256', walletOf({ accountHolder: 'a'.repeat(256) }), 'sourceOfFunds.provided.wallet.accountHolder'],
  ['wallet payer id of 14', walletOf({ payerId: 'a'.repeat(14) }), 'sourceOfFunds.provided.wallet.payerId'],
  ['cardinality', walletOf({}, { cardinality: 'ONCE' }), 'sourceOfFunds.provided.wallet.billingAgreement.cardinality'],
  ['agreement id of 101', walletOf({}, { id: 'a'.repeat(101) }), 'sourceOfFunds.provided.wallet.billingAgreement.id'],
  ['agreement without id', { sourceOfFunds: { type: 'WALLET', provided: { wallet: { billingAgreement: { cardinality: 'SINGLE' } } } } }, 'sourceOfFunds.provided.wallet.billingAgreement.id', 'MISSING'],
  ['agreement without cardinality', { sourceOfFunds: { type: 'WALLET', provided: { wallet: { billingAgreement: { id: 'B-1' } } } } }, 'sourceOfFunds.provided.wallet.billingAgreement.cardinality', 'MISSING'],
  ['agreement description of 256', walletOf({}, { description: 'a'.repeat(256) }), 'sourceOfFunds.provided.wallet.billingAgreement.description'],
  ['unknown member', withCard({ loyalty: { id: '1' } }), 'loyalty', 'UNSUPPORTED'],
];

t.test('each malformed field: 400 naming it and the validation type, nothing stored', async (t) => {
  const a = await app(t);
  for (const [what, body, field, validationType] of CASES) {
    expectInvalid(t, await create(a, M1, body), { field, validationType: validationType ?? 'INVALID' }, what);
  }
  t.equal(await a.gateway.store.headPosition(), 0n, 'no event from any refusal');
});

t.test('the same fields at their bounds are accepted', async (t) => {
  const a = await app(t);
  const res = await create(a, M1, {
    billing: { address: { city: 'c'.repeat(100), company: 'c'.repeat(100), country: 'CAN', postcodeZip: 'K1A 0B1', stateProvince: 's'.repeat(20), stateProvinceCode: 'ON', street: 's'.repeat(100) } },
    correlationId: 'c'.repeat(100),
    customer: { email: 'a.b+c@example.co.uk', firstName: 'f'.repeat(50), lastName: 'l'.repeat(50), mobilePhone: '+44 20 7946 0958', phone: '+1 212 555 1234', taxRegistrationId: 't'.repeat(30) },
    device: { ipAddress: '192.168.0.1' },
    posTerminal: { serialNumber: 'SN-0000000000001' },
    responseControls: { sensitiveData: 'UNMASK' },
    schemeTokenProvisioningMode: 'ATTEMPT_SYNCHRONOUS',
    subMerchant: { identifier: 'Shop & Co. +1!$_-' },
    sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '12', '39', { nameOnCard: 'n'.repeat(256), securityCode: '1234' }) } },
  });
  t.equal(res.statusCode, 201, res.body);
  for (const [what, body] of [
    ['ACH at bounds', achOf({ bankAccountNumber: '1234-5678/9 ABCDE', bankAccountHolder: 'h'.repeat(28) })],
    ['DDC at bounds', ddcOf({ bankAccountNumber: '123456789012', accountType: 'CONSUMER_CHECKING' })],
    ['wallet at bounds', walletOf({ accountHolder: 'h'.repeat(255), payerId: 'p'.repeat(13) }, { id: 'i'.repeat(100), cardinality: 'MULTIPLE' })],
    // Internationalized addresses (RFC 6531/6532): letters beyond ASCII, astral ones too.
    ['international email', withCard({ customer: { email: 'jürgen.\u{1D49C}@bücher.example' } })],
    ['international wallet email', walletOf({ accountEmail: '用户@例子.广告' })],
  ] as const) {
    const r = await create(a, M1, body);
    t.equal(r.statusCode, 201, `${what}: ${r.body}`);
  }
});
