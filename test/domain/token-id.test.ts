import { randomInt } from 'node:crypto';
import t from 'tap';
import { detectBrand, luhnValid } from '../../domain/card.js';
import { generateToken, preserve64Token, randomToken, suppliedTokenIdProblem, type RandomDigits } from '../../domain/token/token-id.js';

/** A real source of random decimal digits. */
const realDigits: RandomDigits = (count) => {
  let out = '';
  for (let i = 0; i < count; i++) out += String(randomInt(10));
  return out;
};

/** A deterministic source: returns `fixed` cut or repeated to the requested length, recording requests. */
function fixedDigits(fixed: string): RandomDigits & { requests: number[] } {
  const requests: number[] = [];
  const source = (count: number) => {
    requests.push(count);
    return fixed.repeat(Math.ceil(count / fixed.length) + 1).slice(0, count);
  };
  return Object.assign(source, { requests });
}

const TEST_CARDS = [
  '5123450000000008', '2223000000000007', '5111111111111118', '2223000000000023',
  '4508750015741019', '4012000033330026', '345678901234564', '30123400000000', '36259600000012',
  '3528000000000007', '3528111100000001', '6011003179988686', '6011963280099774',
  '5000000000000000005', '5666555544443333', '135492354874528', '135420001569134',
];

t.test('randomToken', async (t) => {
  t.test('with a deterministic digit source: the exact value', async (t) => {
    const digits = fixedDigits('12345678901234');
    t.equal(randomToken(digits), '9123456789012348');
    t.strictSame(digits.requests, [14], 'asks for exactly 14 random digits');
    t.equal(randomToken(fixedDigits('0')), '9000000000000001');
  });

  t.test('property: 16 digits, first 9, passes Luhn, no card brand (2000 real draws)', async (t) => {
    const bad: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const token = randomToken(realDigits);
      seen.add(token);
      if (!/^9\d{15}$/.test(token) || !luhnValid(token) || detectBrand(token) !== 'UNKNOWN') bad.push(token);
    }
    t.strictSame(bad, [], 'every token is 16 digits, begins with 9, passes Luhn and is of no network');
    t.ok(seen.size > 1990, 'the middle digits come from the source (tokens differ)');
  });
});

t.test('preserve64Token', async (t) => {
  t.test('keeps the first 6 and last 4 digits and the length, fails Luhn (every test card, many draws)', async (t) => {
    const bad: string[] = [];
    let draws = 0;
    for (const card of TEST_CARDS) {
      for (let i = 0; i < 200; i++) {
        draws++;
        const token = preserve64Token(card, realDigits);
        const ok = token.length === card.length
          && /^\d+$/.test(token)
          && token.slice(0, 6) === card.slice(0, 6)
          && token.slice(-4) === card.slice(-4)
          && token !== card
          && !luhnValid(token);
        if (!ok) bad.push(`${card} -> ${token}`);
      }
    }
    t.equal(draws, TEST_CARDS.length * 200);
    t.strictSame(bad, [], 'every token preserves 6.4, differs from the card and fails Luhn');
  });

  t.test('a digit source that reproduces the card middle still gives a token that is not the card', async (t) => {
    for (const card of TEST_CARDS) {
      const middle = card.slice(6, -4);
      const token = preserve64Token(card, fixedDigits(middle));
      t.not(token, card, card);
      t.notOk(luhnValid(token), `${token} fails Luhn`);
      t.equal(token.length, card.length);
      t.equal(token.slice(0, 6), card.slice(0, 6));
      t.equal(token.slice(-4), card.slice(-4));
      // only the last middle digit was changed, by one
      t.equal(token.slice(0, -5), card.slice(0, -5));
    }
  });

  t.test('every possible Luhn-valid middle is changed, for every digit value in the last middle position', async (t) => {
    // 5123450000000008 with middle 00000d: find the middles that make it valid and check each.
    const head = '512345';
    const tail = '0008';
    const validInputs: string[] = [];
    const bad: string[] = [];
    for (let a = 0; a <= 9; a++) {
      for (let b = 0; b <= 9; b++) {
        const middle = `0000${a}${b}`;
        if (luhnValid(head + middle + tail)) validInputs.push(middle);
        const token = preserve64Token(head + middle + tail, fixedDigits(middle));
        if (luhnValid(token)) bad.push(`${head}${middle}${tail} -> ${token}`);
      }
    }
    t.equal(validInputs.length, 10, 'ten of the hundred middles make a valid number (one per last digit)');
    t.strictSame(bad, [], 'none of them survives as the token');
  });

  t.test('uses the digit source for the middle, asking for length - 10 digits', async (t) => {
    const digits16 = fixedDigits('123456');
    t.equal(preserve64Token('5123450000000008', digits16), '5123451234560008');
    t.strictSame(digits16.requests, [6]);
    const digits19 = fixedDigits('987654321');
    const token19 = preserve64Token('5000000000000000005', digits19);
    t.strictSame(digits19.requests, [9]);
    t.equal(token19.length, 19);
    t.equal(token19.slice(0, 6), '500000');
    t.equal(token19.slice(-4), '0005');
  });

  t.test('refuses numbers shorter than 11 digits', async (t) => {
    t.throws(() => preserve64Token('1234567890', realDigits), RangeError);
    t.throws(() => preserve64Token('123456789', realDigits), RangeError);
    t.throws(() => preserve64Token('', realDigits), RangeError);
    const eleven = preserve64Token('12345678903', fixedDigits('5'));
    t.equal(eleven, '12345658903', '11 digits are enough: one middle digit');
    t.equal(eleven.slice(0, 6), '123456');
    t.equal(eleven.slice(-4), '8903');
    t.notOk(luhnValid(eleven));
  });
});

t.test('generateToken dispatches on the strategy', async (t) => {
  const card = '5123450000000008';
  t.equal(generateToken('RANDOM', card, fixedDigits('12345678901234')), '9123456789012348');
  t.equal(generateToken('PRESERVE_6_4', card, fixedDigits('123456')), '5123451234560008');
  const random = generateToken('RANDOM', '345678901234564', realDigits);
  t.match(random, /^9\d{15}$/, 'RANDOM ignores the card length and prefix');
  const preserved = generateToken('PRESERVE_6_4', '345678901234564', realDigits);
  t.equal(preserved.length, 15);
  t.match(preserved, /^345678\d{5}4564$/);
});

t.test('a merchant-supplied token id: never a card number, never "generated"', async (t) => {
  for (const id of ['5123450000000008', '345678901234564', '5000000000000000005', '4012000033330026']) {
    t.match(suppliedTokenIdProblem(id), /must not be a card number/, `${id.slice(0, 4)}… refused`);
    t.notMatch(suppliedTokenIdProblem(id) ?? '', id, 'without repeating the number');
  }
  t.ok(suppliedTokenIdProblem('generated'), "'generated' refused");
  // Not card numbers: too short or too long, failing Luhn, or not only digits.
  for (const id of ['512345000000', '51234500000000000000', '5123450000000009', 'customer42', '5123450000000008a', 'Generated']) {
    t.equal(suppliedTokenIdProblem(id), undefined, `${id} accepted`);
  }
});
