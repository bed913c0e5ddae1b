import t from 'tap';
import fc from 'fast-check';
import { formatAmount, MAX_AMOUNT, minorUnits, parseAmount, parseAmountByRegex, toDecimal } from '../../domain/money.js';

t.test('minorUnits (ISO 4217 exponents)', async (t) => {
  t.equal(minorUnits('USD'), 2);
  t.equal(minorUnits('EUR'), 2);
  t.equal(minorUnits('JPY'), 0);
  t.equal(minorUnits('BHD'), 3);
  t.equal(minorUnits('KWD'), 3);
  t.equal(minorUnits('ABC'), undefined, 'unknown code');
  t.equal(minorUnits(''), undefined, 'empty');
});

t.test('minorUnits: codes whose ISO 4217 minor unit is "N.A." are not payable', async (t) => {
  // ISO 4217 lists no minor unit ("N.A.") for these; `currency-codes` reports 0 digits for them,
  // so they must be refused explicitly: undefined, not 0.
  for (const code of ['XAU', 'XAG', 'XPT', 'XPD', 'XXX', 'XTS', 'XDR']) {
    t.equal(minorUnits(code), undefined, code);
  }
  // ...while real currencies whose code begins with X keep theirs.
  t.equal(minorUnits('XAF'), 0);
  t.equal(minorUnits('XOF'), 0);
  t.equal(minorUnits('XCD'), 2);
});

t.test('parseAmount accepts request decimals', async (t) => {
  t.strictSame(parseAmount('100.00', 2), { ok: true, minor: 10000 }, "'100.00' USD");
  t.strictSame(parseAmount('12.5', 2), { ok: true, minor: 1250 }, "'12.5' USD");
  t.strictSame(parseAmount('7', 2), { ok: true, minor: 700 }, "'7' USD");
  t.strictSame(parseAmount('0.01', 2), { ok: true, minor: 1 });
  t.strictSame(parseAmount('12.80', 2), { ok: true, minor: 1280 });
  t.strictSame(parseAmount('100', 0), { ok: true, minor: 100 }, "'100' JPY");
  t.strictSame(parseAmount('1.234', 3), { ok: true, minor: 1234 }, "'1.234' BHD");
  t.strictSame(parseAmount('0.001', 3), { ok: true, minor: 1 });
  t.strictSame(parseAmount('1.2', 3), { ok: true, minor: 1200 });
  t.strictSame(parseAmount('007', 2), { ok: true, minor: 700 }, 'leading zeros');
});

t.test('parseAmount: trailing zeros beyond the currency digits are harmless', async (t) => {
  t.strictSame(parseAmount('1.500', 2), { ok: true, minor: 150 });
  t.strictSame(parseAmount('0.010', 2), { ok: true, minor: 1 });
  t.strictSame(parseAmount('100.0', 0), { ok: true, minor: 100 });
  t.strictSame(parseAmount('100.000', 0), { ok: true, minor: 100 });
  t.strictSame(parseAmount('1.2340', 3), { ok: true, minor: 1234 });
});

t.test('parseAmount refuses more decimals than the currency has', async (t) => {
  t.strictSame(parseAmount('100.5', 0), { ok: false, problem: { kind: 'too_many_decimals', allowed: 0 } }, "'100.5' JPY");
  t.strictSame(parseAmount('1.001', 2), { ok: false, problem: { kind: 'too_many_decimals', allowed: 2 } });
  t.strictSame(parseAmount('0.001', 2), { ok: false, problem: { kind: 'too_many_decimals', allowed: 2 } });
  t.strictSame(parseAmount('1.2345', 3), { ok: false, problem: { kind: 'too_many_decimals', allowed: 3 } });
  t.strictSame(parseAmount('1.0010', 2), { ok: false, problem: { kind: 'too_many_decimals', allowed: 2 } });
});

t.test('parseAmount refuses zero', async (t) => {
  for (const [text, digits] of [['0.00', 2], ['0', 2], ['0', 0], ['000.000', 3], ['0.0', 0]] as const) {
    t.strictSame(parseAmount(text, digits), { ok: false, problem: { kind: 'zero' } }, `${text} (${digits})`);
  }
});

t.test('parseAmount refuses bad formats', async (t) => {
  for (const text of ['', 'abc', '-1', '+1', '1,00', '1e3', '1.2.3', ' 1', '1 ', 'NaN', 'Infinity', '0x10', '١٢']) {
    t.strictSame(parseAmount(text, 2), { ok: false, problem: { kind: 'format' } }, JSON.stringify(text));
  }
});

t.test('parseAmount refuses amounts above the response maximum 1000000000000', async (t) => {
  t.equal(MAX_AMOUNT, 1_000_000_000_000);
  t.strictSame(parseAmount('1000000000000', 2), { ok: true, minor: 100_000_000_000_000 }, 'the maximum itself');
  t.strictSame(parseAmount('1000000000000.00', 2), { ok: true, minor: 100_000_000_000_000 });
  t.strictSame(parseAmount('1000000000000.01', 2), { ok: false, problem: { kind: 'too_large' } });
  t.strictSame(parseAmount('1000000000001', 2), { ok: false, problem: { kind: 'too_large' } });
  t.strictSame(parseAmount('1000000000001', 0), { ok: false, problem: { kind: 'too_large' } });
  t.strictSame(parseAmount('1000000000000', 0), { ok: true, minor: 1_000_000_000_000 });
  t.strictSame(parseAmount('1000000000000.001', 3), { ok: false, problem: { kind: 'too_large' } });
  t.strictSame(parseAmount('999999999999.999', 3), { ok: true, minor: 999_999_999_999_999 });
  t.strictSame(parseAmount('99999999999999999999', 2), { ok: false, problem: { kind: 'too_large' } }, 'beyond safe integers');
});

t.test('toDecimal: minor units to the JSON number of a response', async (t) => {
  t.equal(toDecimal(1280, 2), 12.8);
  t.equal(toDecimal(10000, 2), 100);
  t.equal(toDecimal(1, 2), 0.01);
  t.equal(toDecimal(1005, 2), 10.05);
  t.equal(toDecimal(100, 0), 100);
  t.equal(toDecimal(1234, 3), 1.234);
  t.equal(toDecimal(1, 3), 0.001);
  t.equal(toDecimal(100_000_000_000_000, 2), 1_000_000_000_000);
  t.equal(toDecimal(99_999_999_999_999, 2), 999_999_999_999.99);
  t.equal(JSON.stringify(toDecimal(1280, 2)), '12.8');
  t.equal(JSON.stringify(toDecimal(10000, 2)), '100');
  // every cent from 0.00 to 20.00 renders as its shortest exact decimal
  const wrong: string[] = [];
  for (let minor = 0; minor <= 2000; minor++) {
    const expected = String(Math.trunc(minor / 100)) + (minor % 100 ? '.' + String(minor % 100).padStart(2, '0').replace(/0$/, '') : '');
    const actual = JSON.stringify(toDecimal(minor, 2));
    if (actual !== expected) wrong.push(`${minor}: ${actual} != ${expected}`);
  }
  t.strictSame(wrong, []);
});

t.test('formatAmount: minor units to a request-style decimal string', async (t) => {
  t.equal(formatAmount(1280, 2), '12.80');
  t.equal(formatAmount(5, 2), '0.05');
  t.equal(formatAmount(10000, 2), '100.00');
  t.equal(formatAmount(100, 0), '100');
  t.equal(formatAmount(1234, 3), '1.234');
  t.equal(formatAmount(1, 3), '0.001');
  t.equal(formatAmount(100_000_000_000_000, 2), '1000000000000.00');
  t.equal(formatAmount(99_999_999_999_999, 2), '999999999999.99');
});

t.test('formatAmount is exact by the digits for every safe integer (a division by 10^3 is not, past 2^53 / 1000)', async (t) => {
  t.equal(formatAmount(999_999_999_999_999, 3), '999999999999.999');
  t.equal(formatAmount(Number.MAX_SAFE_INTEGER, 3), '9007199254740.991');
  t.equal(formatAmount(Number.MAX_SAFE_INTEGER, 2), '90071992547409.91');
  t.equal(formatAmount(-1234, 3), '-1.234');
  fc.assert(fc.property(fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) }), fc.constantFrom(1, 2, 3), (minor, digits) => {
    const text = minor.toString().padStart(digits + 1, '0');
    return formatAmount(Number(minor), digits) === `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  }));
});

t.test('parseAmount and formatAmount round-trip', async (t) => {
  const wrong: string[] = [];
  for (const digits of [0, 2, 3]) {
    for (const minor of [1, 7, 10, 99, 100, 101, 1005, 1280, 123456, MAX_AMOUNT * 10 ** digits]) {
      const text = formatAmount(minor, digits);
      const parsed = parseAmount(text, digits);
      if (!parsed.ok || parsed.minor !== minor) wrong.push(`${minor}/${digits}: ${text} -> ${JSON.stringify(parsed)}`);
    }
  }
  t.strictSame(wrong, []);
});

t.test('parseAmount answers what parseAmountByRegex answers, for any text', async (t) => {
  // Texts of digits, points and a few other characters, of the lengths around the fast reading's bound.
  const char = fc.constantFrom('0', '0', '0', '1', '5', '9', '.', '.', '-', '+', 'e', ' ', '١');
  const text = fc.oneof(fc.array(char, { maxLength: 18 }).map((cs) => cs.join('')), fc.string({ maxLength: 17 }),
    fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 16n }), fc.stringMatching(/^[0-9]{0,5}$/)).map(([w, f]) => `${w}.${f}`));
  fc.assert(fc.property(text, fc.integer({ min: 0, max: 3 }), (amount, digits) => {
    const fast = parseAmount(amount, digits);
    const reference = parseAmountByRegex(amount, digits);
    if (JSON.stringify(fast) !== JSON.stringify(reference)) throw new Error(`${JSON.stringify(amount)} (${digits}): ${JSON.stringify(fast)} against ${JSON.stringify(reference)}`);
  }), { numRuns: 20_000, seed: 42 });
  t.pass('20,000 texts');
  for (const amount of ['999999999999999', '99999999999999.9', '1000000000000', '1000000000000.001', '9007199254740.993', '12.', '.5', '.', '']) {
    for (const digits of [0, 1, 2, 3]) t.strictSame(parseAmount(amount, digits), parseAmountByRegex(amount, digits), `${amount} (${digits})`);
  }
});
