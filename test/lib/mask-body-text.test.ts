// maskedBodyText keeps a JSON body's text as sent when a scan finds nothing in it to mask (but
// security codes, masked in place): what it keeps must read as the masked copy reads (the journal's
// view masks what it parses again), and never hold a card number in any form.
import fc from 'fast-check';
import t from 'tap';
import { maskedBody, maskedBodyText } from '../../lib/mask-body.js';

const PANS = ['5123450000000008', '4508750015741018', '6011000990139424', '4111111111111111'];

/** Whether a text holds one of PANS in some form: its digits together once separators and escapes are read. */
function holdsPan(text: string): boolean {
  const decoded = text.replace(/\\u00([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  const digits = decoded.replace(/[^0-9]/g, '');
  return PANS.some((pan) => digits.includes(pan));
}

const key = fc.constantFrom('number', 'securityCode', 'card.securityCode', 'bankAccountNumber', 'apiPassword', 'amount', 'reference', 'id', '5123450000000008', 'cardNumber');
const text = fc.constantFrom('100', '12.50', 'USD', '5123450000000008', '5123 4500 0000 0008', 'ref 6011-0009-9013-9424', '9123456789012345', 'order 1234567890', '88811122233', 'a"b', 'x');
const leaf = fc.oneof(text, fc.integer(), fc.constantFrom(4111111111111111, 12.5, true, null));
const body = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, tie('object'), fc.array(tie('value'), { maxLength: 3 })),
  object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
})).object;

t.test('what is kept reads as the masked copy, and holds no card number', async (t) => {
  fc.assert(fc.property(body, fc.constantFrom(undefined, 0, 2), (value, indent) => {
    const sent = JSON.stringify(value, null, indent);
    const kept = maskedBodyText(JSON.parse(sent), sent);
    return JSON.stringify(maskedBody(JSON.parse(kept))) === JSON.stringify(maskedBody(value)) && !holdsPan(kept.replace(/[0-9]{6}x+[0-9]{4}/g, ''));
  }), { numRuns: 2000 });
  t.pass('2000 bodies');
});

t.test('a body with nothing to mask is kept as its text; security codes masked in place', async (t) => {
  const plain = '{"apiOperation":"PAY","transaction":{"amount":"12.50","currency":"USD"}}';
  t.equal(maskedBodyText(JSON.parse(plain), plain), plain, 'the text as sent');
  const pay = '{"apiOperation":"PAY","card":{"securityCode":"1234"}}';
  t.equal(maskedBodyText(JSON.parse(pay), pay), '{"apiOperation":"PAY","card":{"securityCode":"xxxx"}}');
});

t.test('card numbers written so a scan of the text would not see them are masked all the same', async (t) => {
  const cases = [
    '{"reference":"\\u00351\\u003234\\u00350000000008"}', // escapes spelling the digits
    '{"card":{"number":5.123450000000008e15}}', // a number's exponent
    '{"reference":51234500000000.08e2}',
    '{"5123450000000008":"a member named by it"}',
    '{"card":{"securityCode":123}}', // a security code as a number
    '{"card.securityCode":"123","sourceOfFunds":{"provided":{"ach":{"bankAccountNumber":"88811122233"}}}}',
    '{"apiPassword":"secret-password"}',
  ];
  for (const sent of cases) {
    const kept = maskedBodyText(JSON.parse(sent), sent);
    t.notOk(holdsPan(kept), `${sent}: no card number in ${kept}`);
    t.same(JSON.parse(kept), maskedBody(JSON.parse(sent)), `${sent}: the masked copy`);
  }
  t.notOk(maskedBodyText(JSON.parse(cases[4]!), cases[4]).includes('123'), 'the security code');
  t.notOk(maskedBodyText(JSON.parse(cases[5]!), cases[5]).match(/"123"|88811122233/), 'the dotted security code and the bank account');
  t.notOk(maskedBodyText(JSON.parse(cases[6]!), cases[6]).includes('secret'), 'the password');
});

t.test('a card number among a string\'s digit groups, after a country code or other digits, is masked', async (t) => {
  // A telephone number in international notation kept by a payment; a reference refused (both journaled).
  const sent = '{"customer":{"phone":"+12 4222222222222"},"order":{"reference":"ref 12 4111 1111 1111 1111"}}';
  const kept = maskedBodyText(JSON.parse(sent), sent);
  t.same(JSON.parse(kept), { customer: { phone: '+12 4222xxxxx2222' }, order: { reference: 'ref 12 4111 xxxx xxxx 1111' } });
});

t.test('a card number in digits of another script is masked (no shortcut for a body with few ASCII digits)', async (t) => {
  const arabic = '{"reference":"٥١٢٣٤٥٠٠٠٠٠٠٠٠٠٨"}'; // 5123450000000008 in Arabic-Indic digits: no ASCII digit at all
  t.same(JSON.parse(maskedBodyText(JSON.parse(arabic), arabic)), { reference: '512345xxxxxx0008' });
  const spaced = '{"reference":"٥١٢٣ ٤٥٠٠ ٠٠٠٠ ٠٠٠٨"}';
  t.same(JSON.parse(maskedBodyText(JSON.parse(spaced), spaced)), { reference: '512345xxxxxx0008' }, 'in groups');
});
