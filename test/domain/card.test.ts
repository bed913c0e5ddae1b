import t from 'tap';
import {
  cardTypeOf, CARD_BRANDS, detectBrand, fundingMethodOf, luhnCheckDigit, luhnValid, mask64, schemeOf,
  type Brand,
} from '../../domain/card.js';

// The test cards of gateway-facts.md, by brand.
const TEST_CARDS: ReadonlyArray<[Brand, string]> = [
  ['MASTERCARD', '5123450000000008'],
  ['MASTERCARD', '2223000000000007'],
  ['MASTERCARD', '5111111111111118'],
  ['MASTERCARD', '2223000000000023'],
  ['VISA', '4508750015741019'],
  ['VISA', '4012000033330026'],
  ['AMEX', '345678901234564'],
  ['DINERS_CLUB', '30123400000000'],
  ['DINERS_CLUB', '36259600000012'],
  ['JCB', '3528000000000007'],
  ['JCB', '3528111100000001'],
  ['DISCOVER', '6011003179988686'],
  ['DISCOVER', '6011963280099774'],
  ['MAESTRO', '5000000000000000005'],
  ['MAESTRO', '5666555544443333'],
  ['UATP', '135492354874528'],
  ['UATP', '135420001569134'],
];

/** Every single-digit change of a number (each position, each other digit). */
function singleDigitChanges(number: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < number.length; i++) {
    for (let d = 0; d <= 9; d++) {
      if (String(d) === number[i]) continue;
      out.push(number.slice(0, i) + d + number.slice(i + 1));
    }
  }
  return out;
}

t.test('luhnValid', async (t) => {
  t.test('every test card of gateway-facts.md passes', async (t) => {
    for (const [, number] of TEST_CARDS) t.ok(luhnValid(number), number);
  });

  t.test('a changed last digit fails', async (t) => {
    for (const [, number] of TEST_CARDS) {
      const last = Number(number.slice(-1));
      const changed = number.slice(0, -1) + String((last + 1) % 10);
      t.notOk(luhnValid(changed), changed);
    }
  });

  t.test('any single-digit change of any test card fails', async (t) => {
    let checked = 0;
    let accepted: string[] = [];
    for (const [, number] of TEST_CARDS) {
      const changes = singleDigitChanges(number);
      checked += changes.length;
      accepted = accepted.concat(changes.filter(luhnValid));
    }
    t.ok(checked > 1000, 'a meaningful number of variants was checked');
    t.strictSame(accepted, [], 'no single-digit change passes');
  });

  t.test('a transposition of two adjacent different digits fails (except 09/90)', async (t) => {
    const number = '5123450000000008';
    // swap '1' and '2' at positions 1 and 2
    t.notOk(luhnValid('5213450000000008'));
    t.ok(luhnValid(number));
  });

  t.test('the check is positional: the doubled digits are the 2nd, 4th, ... from the right', async (t) => {
    // 18: 8 + (1*2) = 10 -> valid; 81: 1 + (8*2 - 9) = 8 -> invalid
    t.ok(luhnValid('18'));
    t.notOk(luhnValid('81'));
    // 59: 9 + (5*2 - 9) = 10 -> valid (the "subtract 9" branch)
    t.ok(luhnValid('59'));
    t.notOk(luhnValid('95'));
    t.ok(luhnValid('0'));
    t.notOk(luhnValid('1'));
  });

  t.test('non-digit input fails', async (t) => {
    t.notOk(luhnValid(''), 'empty');
    t.notOk(luhnValid('5123 4500 0000 0008'), 'spaces');
    t.notOk(luhnValid('5123-4500-0000-0008'), 'dashes');
    t.notOk(luhnValid('512345000000000a'), 'letter');
    t.notOk(luhnValid('-5123450000000008'), 'sign');
  });
});

t.test('luhnCheckDigit completes every test card', async (t) => {
  for (const [, number] of TEST_CARDS) {
    t.equal(luhnCheckDigit(number.slice(0, -1)), number.slice(-1), number);
  }
  t.equal(luhnCheckDigit('1'), '8');
  t.equal(luhnCheckDigit('912345678901234'), '8');
  t.equal(luhnCheckDigit(''), '0');
  // the body plus the returned digit always passes, and no other digit does
  for (const body of ['7', '42', '900000000000000', '123456789']) {
    const digit = luhnCheckDigit(body);
    t.match(digit, /^\d$/);
    t.ok(luhnValid(body + digit));
    for (let d = 0; d <= 9; d++) {
      if (String(d) !== digit) t.notOk(luhnValid(body + d), `${body}${d} is not valid`);
    }
  }
});

t.test('detectBrand', async (t) => {
  t.test('every test card of gateway-facts.md', async (t) => {
    for (const [brand, number] of TEST_CARDS) t.equal(detectBrand(number), brand, number);
  });

  t.test('China UnionPay: 62 and 81', async (t) => {
    t.equal(detectBrand('6200000000000005'), 'CHINA_UNIONPAY');
    t.equal(detectBrand('6250941006528599'), 'CHINA_UNIONPAY');
    t.equal(detectBrand('8100000000000002'), 'CHINA_UNIONPAY');
  });

  t.test('RuPay: 508, 606985-607984, 608001-608500, 652150-653149', async (t) => {
    t.equal(detectBrand('5080000000000002'), 'RUPAY');
    t.equal(detectBrand('6521520000000004'), 'RUPAY');
    t.equal(detectBrand('6531490000000008'), 'RUPAY');
    t.equal(detectBrand('6069850000000003'), 'RUPAY');
    t.equal(detectBrand('6080010000000009'), 'RUPAY');
    // just outside 652150-653149: the Discover 65 range
    t.equal(detectBrand('6521490000000000'), 'DISCOVER');
    t.equal(detectBrand('6531500000000004'), 'DISCOVER');
  });

  t.test('Mastercard 2-series bounds 2221-2720', async (t) => {
    t.equal(detectBrand('2221000000000009'), 'MASTERCARD');
    t.equal(detectBrand('2720990000000007'), 'MASTERCARD');
    t.not(detectBrand('2220000000000000'), 'MASTERCARD');
    t.not(detectBrand('2721000000000004'), 'MASTERCARD');
  });

  t.test('other ranges', async (t) => {
    t.equal(detectBrand('3700000000000007'), 'AMEX');
    t.equal(detectBrand('3800000000000006'), 'DINERS_CLUB');
    t.equal(detectBrand('3095000000000000'), 'DINERS_CLUB');
    t.equal(detectBrand('6440000000000005'), 'DISCOVER');
    t.equal(detectBrand('6500000000000002'), 'DISCOVER');
    t.equal(detectBrand('6221260000000000'), 'DISCOVER');
    t.equal(detectBrand('6229250000000003'), 'DISCOVER');
    t.equal(detectBrand('6304000000000000'), 'MAESTRO');
    t.equal(detectBrand('6767700000000005'), 'MAESTRO');
  });

  t.test('UNKNOWN when no range matches', async (t) => {
    t.equal(detectBrand('7000000000000005'), 'UNKNOWN');
    t.equal(detectBrand('9123456789012348'), 'UNKNOWN', 'a generated token (9...) is no card');
    t.equal(detectBrand('0000000000000000'), 'UNKNOWN');
    t.equal(detectBrand(''), 'UNKNOWN');
  });
});

t.test('schemeOf', async (t) => {
  for (const brand of CARD_BRANDS) t.equal(schemeOf(brand), brand, `${brand} is its own scheme`);
  t.equal(schemeOf('UNKNOWN'), 'OTHER');
  t.equal(schemeOf('LOCAL_BRAND_ONLY'), 'OTHER');
});

t.test('fundingMethodOf', async (t) => {
  t.equal(fundingMethodOf('MAESTRO'), 'DEBIT');
  t.equal(fundingMethodOf('AMEX'), 'CHARGE');
  t.equal(fundingMethodOf('UNKNOWN'), 'UNKNOWN');
  t.equal(fundingMethodOf('LOCAL_BRAND_ONLY'), 'UNKNOWN');
  for (const brand of CARD_BRANDS) {
    if (brand === 'MAESTRO' || brand === 'AMEX') continue;
    t.equal(fundingMethodOf(brand), 'CREDIT', brand);
  }
});

t.test('cardTypeOf', async (t) => {
  t.equal(cardTypeOf('MASTERCARD', 'CREDIT'), 'MASTERCARD');
  t.equal(cardTypeOf('VISA', 'CREDIT'), 'VISA');
  t.equal(cardTypeOf('MASTERCARD', 'DEBIT'), 'MASTERCARD_DEBIT');
  t.equal(cardTypeOf('VISA', 'DEBIT'), 'VISA_DEBIT');
  t.equal(cardTypeOf('MAESTRO', 'DEBIT'), 'MAESTRO');
  t.equal(cardTypeOf('AMEX', 'CHARGE'), 'AMEX');
  t.equal(cardTypeOf('UATP', 'CREDIT'), 'UATP');
  t.equal(cardTypeOf('UNKNOWN', 'UNKNOWN'), 'OTHER');
  t.equal(cardTypeOf('LOCAL_BRAND_ONLY', 'CREDIT'), 'OTHER');
  // the types of the test cards, as the pay response carries them
  t.equal(cardTypeOf(detectBrand('5666555544443333'), fundingMethodOf(detectBrand('5666555544443333'))), 'MAESTRO');
  t.equal(cardTypeOf(detectBrand('345678901234564'), fundingMethodOf(detectBrand('345678901234564'))), 'AMEX');
});

t.test('mask64 keeps the first 6 and last 4 digits', async (t) => {
  const cases: Array<[string, string]> = [
    ['5123450000000008', '512345xxxxxx0008'], // 16
    ['5000000000000000005', '500000xxxxxxxxx0005'], // 19
    ['30123400000000', '301234xxxx0000'], // 14
    ['345678901234564', '345678xxxxx4564'], // 15
  ];
  for (const [number, masked] of cases) {
    const result = mask64(number);
    t.equal(result, masked, `${number.length} digits`);
    t.equal(result.length, number.length, 'length unchanged');
    t.equal(result.slice(0, 6), number.slice(0, 6), 'first 6 kept');
    t.equal(result.slice(-4), number.slice(-4), 'last 4 kept');
    t.match(result.slice(6, -4), /^x+$/, 'middle all x');
  }
  for (const [, number] of TEST_CARDS) {
    const result = mask64(number);
    t.equal(result.length, number.length, number);
    t.equal(result.slice(0, 6) + result.slice(-4), number.slice(0, 6) + number.slice(-4));
    t.equal(result.slice(6, -4), 'x'.repeat(number.length - 10));
  }
  t.equal(mask64('12345678901'), '123456x8901', '11 digits: one x');
  t.notMatch(mask64('5123456789012346'), /789012/, 'the hidden digits do not leak');
});
