// lib/card-digits.ts reads digits of every script by their value and knows which characters join
// digit groups: checked against the regular expressions for every code point there is.
import t from 'tap';
import { digitAt, digitsOf, groupsOf, joinAt, kindAt, LOOSE, OTHER, TIGHT } from '../../lib/card-digits.js';

t.test('every Unicode decimal digit is read as its value; nothing else is a digit', async (t) => {
  let digits = 0;
  let wrong = 0;
  let runStart = -1;
  for (let code = 0; code <= 0x10ffff; code++) {
    const char = String.fromCodePoint(code);
    const isDigit = /\p{Nd}/u.test(char);
    if (isDigit && runStart < 0) runStart = code;
    if (!isDigit && runStart >= 0) {
      // Digits come in runs of whole tens, 0 to 9 (the Unicode stability policy the values rely on).
      if ((code - runStart) % 10 !== 0) t.fail(`a run of ${code - runStart} digits at U+${runStart.toString(16)}`);
      runStart = -1;
    }
    const kind = kindAt(char, 0);
    const expected = isDigit ? (code - runStart) % 10 : /[\p{Zs}\p{Pd}\u2212]/u.test(char) ? TIGHT : /[./_()\uFF0E\uFF0F\uFF3F\uFF08\uFF09]/u.test(char) ? LOOSE : OTHER;
    if (kind !== expected || digitAt(char, 0) !== (isDigit ? expected : -1)) wrong++;
    if (isDigit) digits++;
  }
  t.equal(wrong, 0, 'each code point classified as its regular expression says');
  t.ok(digits > 600, `${digits} digits`);
  t.equal(digitsOf('０１２３４５６７８９ ٠١٢٣٤٥٦٧٨٩ ०१२३४५६७८९ 𝟎𝟏𝟐𝟑𝟒𝟓𝟔𝟕𝟖𝟗 𝟘𝟙𝟚𝟛𝟜𝟝𝟞𝟟𝟠𝟡'), '0123456789'.repeat(5), 'fullwidth, Arabic-Indic, Devanagari, mathematical bold and double-struck');
  t.equal(digitsOf('\ud835x\udfce9'), '9', 'lone surrogates are no digits');
});

t.test('which separator joins two digit groups', async (t) => {
  const joins = (text: string) => joinAt(text, text.search(/[^\p{Nd}]/u)) >= 0;
  for (const text of ['1 2', '1-2', '1\u00a02', '1\u20132', '1\u22122', '１\u3000２', '1\uff0d2', '123.456', '123456/7890', '4111(1111', '1111)1111', '411_111', '１２３．４５６']) {
    t.ok(joins(text), `'${text}' joins`);
  }
  for (const text of ['1:2', '1,2', '1+2', '1\t2', '1\n2', '1  2', '12.345', '123.45', '1234567.123', '123.4567890', '1 x', '123.', '12.34.56']) {
    t.notOk(joins(text), `'${text}' does not`);
  }
  t.same(groupsOf('４１１１.１１１１-1111 𝟏𝟏𝟏𝟏'), ['4111', '1111', '1111', '1111'], 'groups as ASCII digits');
});
