// maskCardNumbers finds what it must mask by a scan before it runs its regular expression: the
// scan must see the runs the expression sees, so the result is always the expression's.
import fc from 'fast-check';
import t from 'tap';
import { luhnValid } from '../../domain/card.js';
import { holdsCardNumber, maskCardNumbers, maskCardNumbersByRegex, maskCardNumbersInGroups } from '../../lib/mask.js';
import { uuidV7 } from '../../lib/uuid.js';

/** Texts made of what runs of digits are made of (digits, the separators, '%20' and its parts) and other characters. */
const piece = fc.constantFrom('0', '1', '2', '3', '4', '5', '8', '9', ' ', '-', '%20', '%2', '%', '20', '/', 'a', '  ', '--', '5123450000000008', '9123456789012345', '4508 7500 1574 1019', '3782-822463-10005',
  // Other separators and digits of other scripts (lib/card-digits.ts), and what is near them.
  '.', '_', '(', ')', '\u00a0', '\u2013', '\u3000', '\uff0e', '\uff0d', '４', '٤', '𝟒', '\ud835', '\udfd2', '‐', ':', '4111.1111.1111.1111', '１２３', '192.168.100.200');
/** A digit as ASCII, fullwidth, Arabic-Indic or mathematical bold (a pair of code units). */
const script = (d: number, which: number) => [String(d), String.fromCodePoint(0xff10 + d), String.fromCodePoint(0x660 + d), String.fromCodePoint(0x1d7ce + d)][which] as string;
/** A Luhn check digit for `digits`. */
const luhnDigit = (digits: number[]) => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits[digits.length - 1 - i] as number;
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
};
/** Runs of 10 to 21 digits, Luhn-valid or not, some in groups (a separator or none between each digit). */
const run = fc.tuple(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 20 }), fc.boolean(),
  fc.array(fc.constantFrom('', '', '', '', ' ', '-', '%20', '.', '/', '_', '(', ')', '\u00a0', '\u2013', '\uff0e'), { minLength: 21, maxLength: 21 }),
  fc.array(fc.constantFrom(0, 0, 0, 0, 0, 1, 2, 3), { minLength: 21, maxLength: 21 }))
  .map(([digits, luhn, separators, scripts]) => [...digits, luhn ? luhnDigit(digits) : 0].map((d, i) => (i === 0 ? '' : separators[i] ?? '') + script(d, scripts[i] ?? 0)).join(''));
const text = fc.array(fc.oneof(piece, run), { maxLength: 30 }).map((parts) => parts.join(''));

t.test('maskCardNumbers answers what the regular expression answers, for any text', async (t) => {
  fc.assert(fc.property(text, (value) => maskCardNumbers(value) === maskCardNumbersByRegex(value)), { numRuns: 20_000 });
  fc.assert(fc.property(fc.string({ maxLength: 60 }), (value) => maskCardNumbers(value) === maskCardNumbersByRegex(value)), { numRuns: 5_000 });
  t.pass('20,000 texts of digit runs and 5,000 arbitrary strings');
});

t.test('cases written out', async (t) => {
  t.equal(maskCardNumbers('/api/rest/version/3/merchant/M1/token/9123456789012345/order/10000000001/transaction/1'),
    '/api/rest/version/3/merchant/M1/token/9123456789012345/order/10000000001/transaction/1', 'a generated token id and an order id: nothing masked');
  t.equal(maskCardNumbers('card 5123450000000008 here'), 'card 512345xxxxxx0008 here', 'a card number');
  t.equal(maskCardNumbers('4508 7500 1574 1019'), '450875xxxxxx1019', 'in groups');
  t.equal(maskCardNumbers('4508%207500%201574%201019'), '450875xxxxxx1019', 'percent-encoded groups');
  t.equal(maskCardNumbers('12345678901'), '12345678901', 'eleven digits: no run');
  t.equal(maskCardNumbers('5123450000000009'), '5123450000000009', 'fails the Luhn check: not masked');
});

t.test('holdsCardNumber: a card number anywhere in a text, written together or in groups', async (t) => {
  const found = [
    '6011000990139424', 'ref 6011000990139424', 'INV6011000990139424X', '6011 0009 9013 9424', '6011-0009-9013-9424',
    'card: 3782 822463 10005 (amex)', '4222222222222', '4000000000000000006', 'order 12 6011 0009 9013 9424 2030',
    '6011000990139424 123', 'x5123450000000008', 'a,4508750015741019,b',
  ];
  for (const text of found) t.ok(holdsCardNumber(text), `found in '${text}'`);
  const none = [
    '', 'cart-1', '12345678901', '5123450000000009', '9630794108026268', '60110009901394240000', '2026-11-25 12:30:45',
    '192.168.100.200', '1000000000000.00', '6011  0009  9013  9424', '6011000990139424'.slice(0, 12),
  ];
  for (const text of none) t.notOk(holdsCardNumber(text), `none in '${text}'`);
});

t.test('holdsCardNumber: a UUID is no card number, though its digit groups may pass Luhn; a number beside one is found', async (t) => {
  // Each holds 13 to 19 digits of whole groups passing Luhn: 7706-8218-571102, 8218-571102009678.
  const uuids = ['01a223c2-2e1c-7706-8218-571102a61d2f', '0192F3A1-BC00-7ABC-8218-571102009678', 'id 01a223c2-2e1c-7706-8218-571102a61d2f.'];
  t.ok(holdsCardNumber('7706-8218-571102') && holdsCardNumber('8218-571102009678'), 'the runs alone are card numbers');
  for (const text of uuids) t.notOk(holdsCardNumber(text), `none in '${text}'`);
  // UUIDs as the gateway makes them (notification ids): about one in a thousand has such a run,
  // found once its letters are replaced (no longer a UUID).
  let some = 0;
  for (let i = 0; i < 20_000; i++) {
    const id = uuidV7();
    if (holdsCardNumber(id)) t.fail(`${id} counted`);
    if (holdsCardNumber(id.replace(/[a-f]/g, 'x'))) some++;
  }
  t.ok(some > 0, `${some} of 20,000 UUIDs have such a run`);
  for (const text of ['01a223c2-2e1c-7706-8218-571102a61d2f 6011000990139424', '6011-0009-9013-9424-571102a61d2f', '01a223c2-6011-0009-9013-9424']) {
    t.ok(holdsCardNumber(text), `found in '${text}'`);
  }
});

t.test('holdsCardNumber: any Luhn-valid number of 13 to 19 digits between other characters is found', async (t) => {
  const number = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 18 })
    .map((digits) => [...digits, luhnDigit(digits)].join(''))
    .filter((n) => !(n.length === 16 && n.startsWith('9')));
  const around = fc.string({ maxLength: 10 }).map((s) => s.replace(/[0-9]/g, 'x'));
  const separator = fc.constantFrom('', ' ', '-');
  fc.assert(fc.property(around, number, separator, around, (before, n, sep, after) => {
    const grouped = n.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
    return holdsCardNumber(`${before}${grouped}${after}`);
  }), { numRuns: 5_000 });
  t.pass('5,000 numbers');
});

/** Written with other separators or other digits: refused, and masked wherever it is logged or kept. */
const OTHER_FORMS = [
  '4111.1111.1111.1111', '4111(1111)1111-1111', '4111/1111/1111/1111', '4111_1111_1111_1111', 'ref 6011.0009.9013.9424.', '3782.822463.10005',
  '4111\u00a01111\u00a01111\u00a01111', '4111\u202f1111\u202f1111\u202f1111', '4111\u20131111\u20131111\u20131111', '4111\u22121111\u22121111\u22121111',
  '４１１１１１１１１１１１１１１１', '４１１１－１１１１－１１１１－１１１１', '４１１１．１１１１．１１１１．１１１１', '４１１１\u3000１１１１\u3000１１１１\u3000１１１１',
  '٤١١١١١١١١١١١١١١١', '۴۱۱۱ ۱۱۱۱ ۱۱۱۱ ۱۱۱۱', '4111-111111111111'.replace(/[0-9]/g, (d) => String.fromCodePoint(0x966 + Number(d))), '𝟒𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏', 'x4111.1111.1111.1111y', 'INV_6011_0009_9013_9424',
];
/**
 * Ordinary values written with the same characters: taken. Each one's digits pass Luhn where it
 * has 12 or more (else the case would prove nothing): it is its shape that keeps it.
 */
const ORDINARY = [
  '2026.11.29', '29/11/2026', '2026-11-29T03:02:07.129Z', '2026-11-29T03:02:07.123+01:05', '2026.11.29 12.30.42', '20261129.030207129',
  '192.168.100.209', '10.100.200.250.5', '1.2.3.4.5.6.7.8.9.10.11.12.12', 'v10.20.300.4000', '1764385327.127',
  '123456789012.37', '999999999999.93', '1.234.567.890,15', 'INV_2026_11_29_0000', '(555) 123-4567', '+44 (0)20 7946 0956',
  '9123456789012348', '9123.4567.8901.2348', '４１１１', '٢٠٢٦-١١-٢٩',
  '6011..0009..9013..9424', '6011. 0009. 9013. 9424', '60.11.00.09.90.13.94.24', '6011000.990139424',
];

t.test('other separators, other digits: refused and masked; ordinary values with them: taken', async (t) => {
  for (const text of OTHER_FORMS) {
    t.ok(holdsCardNumber(text), `refused: '${text}'`);
    for (const [name, mask] of [['maskCardNumbers', maskCardNumbers], ['maskCardNumbersInGroups', maskCardNumbersInGroups]] as const) {
      const masked = mask(text);
      t.notOk(holdsCardNumber(masked), `${name}: nothing left in '${masked}'`);
      t.match(masked, /xxxxx/, `${name}: '${text}' masked`);
    }
    t.equal(maskCardNumbers(text), maskCardNumbersByRegex(text), `the scan finds what the expression finds in '${text}'`);
  }
  t.equal(maskCardNumbers('pay ４１１１．１１１１．１１１１．１１１１ now'), 'pay 411111xxxxxx1111 now', 'shown 6.4, as the gateway shows a card number');
  for (const text of ORDINARY) {
    t.notOk(holdsCardNumber(text), `taken: '${text}'`);
    t.equal(maskCardNumbers(text), text, `not masked: '${text}'`);
    const digits = text.replace(/[^0-9]/g, '');
    if (digits.length >= 12) t.ok(luhnValid(digits), `the digits of '${text}' pass Luhn`);
  }
});
