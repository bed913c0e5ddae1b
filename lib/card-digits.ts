// What the card-number rules of lib/mask.ts read in a text: digits of any script, and the characters
// that join digit groups into one number.
//
// A digit is any Unicode decimal digit (\p{Nd}), read as its value: a card number typed in fullwidth
// digits (an East Asian keyboard), Arabic-Indic or Devanagari digits is the same card number.
//
// Two kinds of separator join groups, one character between two digits:
//   - TIGHT: a space or a dash of any script (\p{Zs}, \p{Pd}, and U+2212 MINUS SIGN, which looks
//     like one): ' ' and '-' as typed, NBSP and narrow NBSP as a word processor or a copied web
//     page writes them, the en dash of an autocorrect, the ideographic space and fullwidth hyphen of
//     an East Asian keyboard. They join any groups, as ' ' and '-' always have.
//   - LOOSE: '.', '/', '_', '(', ')' and their fullwidth forms: how people also write numbers in
//     groups (4111.1111.1111.1111, 4111(1111)1111-1111). These are also how dates, times, decimal
//     amounts, versions and epoch times are written, so they join only two groups of 3 to 6 digits
//     (a card number's groups: 4-4-4-4, 4-6-5, 4-6-4): 2026.11.29, 03:02:07.123, 12345678901.25,
//     1764385327.123 and 1.2.3 join nothing.
// No other character joins (':' of times, ',' of amounts, '+' of telephone numbers, tabs and line
// breaks: each one added makes more ordinary values look like card numbers), nor two separators in a
// row. The code points are classified by the regular expressions below once each, then looked up.

export const TIGHT = 10;
export const LOOSE = 11;
export const OTHER = -1;
const UNKNOWN = -2;

/** The characters as the regular expressions of lib/mask.ts spell them. */
export const DIGIT_CLASS = '\\p{Nd}';
export const TIGHT_CLASS = '[\\p{Zs}\\p{Pd}\\u2212]';
export const LOOSE_CLASS = '[./_()\\uFF0E\\uFF0F\\uFF3F\\uFF08\\uFF09]';
const DIGIT = new RegExp(DIGIT_CLASS, 'u');
const TIGHT_CHAR = new RegExp(TIGHT_CLASS, 'u');
const LOOSE_CHAR = new RegExp(LOOSE_CLASS, 'u');

/**
 * The kind of every code point of the first two planes (a digit's value 0-9, TIGHT, LOOSE, OTHER),
 * filled as they are met. No code point above holds a digit, a space or a dash (test/lib/card-digits.test.ts).
 */
const KINDS = new Int8Array(0x20000).fill(UNKNOWN);
for (let c = 0; c < 128; c++) KINDS[c] = classify(c);

function classify(code: number): number {
  const char = String.fromCodePoint(code);
  if (DIGIT.test(char)) {
    // Decimal digits are encoded in runs of ten, 0 to 9 (a Unicode stability policy); runs may
    // follow one another (the mathematical digits): the value is the distance to the run's start, mod 10.
    let start = code;
    while (DIGIT.test(String.fromCodePoint(start - 1))) start--;
    return (code - start) % 10;
  }
  if (TIGHT_CHAR.test(char)) return TIGHT;
  return LOOSE_CHAR.test(char) ? LOOSE : OTHER;
}

function kindOfCode(code: number): number {
  if (code >= 0x20000) return OTHER;
  const known = KINDS[code] as number;
  if (known !== UNKNOWN) return known;
  const kind = classify(code);
  KINDS[code] = kind;
  return kind;
}

/** The kind of the character at `index` (the code point there: a lone surrogate is OTHER); OTHER past the end. */
export function kindAt(text: string, index: number): number {
  const c = text.charCodeAt(index);
  if (c < 128) return KINDS[c] as number;
  if (!(c >= 0)) return OTHER; // (past the end: NaN)
  return kindOfCode(c >= 0xd800 && c < 0xdc00 ? (text.codePointAt(index) as number) : c);
}

/** The value of the digit at `index`, or -1: the scans' test, made cheap for what most texts hold. */
export function digitAt(text: string, index: number): number {
  const c = text.charCodeAt(index);
  if (c <= 57) return c >= 48 ? c - 48 : -1;
  // (The first digit past ASCII is U+0660: Latin letters, quotes and the like are none.)
  if (c < 0x660) return -1;
  const kind = kindAt(text, index);
  return kind < 10 ? kind : -1;
}

/** The length in code units of the character at `index` that is a digit or a separator (2 for one of the second plane). */
export function widthAt(text: string, index: number): number {
  const c = text.charCodeAt(index);
  return c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

/** How many digits in a row end at `end` (exclusive), counted up to `most` + 1. */
function digitsBefore(text: string, end: number, most: number): number {
  let count = 0;
  let at = end;
  while (count <= most && at > 0) {
    const c = text.charCodeAt(at - 1);
    if (c >= 48 && c <= 57) {
      count++;
      at--;
      continue;
    }
    const pair = c >= 0xdc00 && c < 0xe000 && (text.charCodeAt(at - 2) & 0xfc00) === 0xd800;
    const start = pair ? at - 2 : at - 1;
    if (digitAt(text, start) < 0) break;
    count++;
    at = start;
  }
  return count;
}

/** How many digits in a row begin at `start`, counted up to `most` + 1. */
function digitsAfter(text: string, start: number, most: number): number {
  let count = 0;
  let at = start;
  while (count <= most) {
    const c = text.charCodeAt(at);
    if (c >= 48 && c <= 57) {
      at++;
    } else if (c >= 0x660 && digitAt(text, at) >= 0) {
      at += widthAt(text, at);
    } else {
      break;
    }
    count++;
  }
  return count;
}

/**
 * Where the digit after a separator at `index` begins, when that separator joins the digit before
 * it to the one after (TIGHT: any groups; LOOSE: groups of 3 to 6 digits); -1 otherwise.
 */
export function joinAt(text: string, index: number): number {
  const c = text.charCodeAt(index);
  const kind = c < 128 ? (KINDS[c] as number) : kindAt(text, index);
  if (kind === OTHER) return -1;
  const next = c < 128 ? index + 1 : index + widthAt(text, index);
  if (kind === TIGHT) return digitAt(text, next) >= 0 ? next : -1;
  if (kind !== LOOSE) return -1;
  const before = digitsBefore(text, index, 6);
  if (before < 3 || before > 6) return -1;
  const after = digitsAfter(text, next, 6);
  return after >= 3 && after <= 6 ? next : -1;
}

/** The digits of a text, as ASCII digits ('４１１１ ١١١١' is '41111111'). */
export function digitsOf(text: string): string {
  let digits = '';
  for (let i = 0; i < text.length; i += widthAt(text, i)) {
    const digit = digitAt(text, i);
    if (digit >= 0) digits += String.fromCharCode(48 + digit);
  }
  return digits;
}

/** A run of digits and separators (as the scans find one) cut into its digit groups, as ASCII digits. */
export function groupsOf(run: string): string[] {
  const groups: string[] = [];
  let group = '';
  for (let i = 0; i < run.length; i += widthAt(run, i)) {
    const digit = digitAt(run, i);
    if (digit >= 0) {
      group += String.fromCharCode(48 + digit);
    } else {
      groups.push(group);
      group = '';
    }
  }
  groups.push(group);
  return groups;
}
