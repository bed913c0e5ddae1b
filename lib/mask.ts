// Card numbers never appear in plaintext in an error text or a log line (one rule for both): a run
// of digits that could be a card number is shown the way the gateway shows card numbers, its
// first 6 and last 4 digits kept (mask64). A run could be a card number when it has 12-19 digits
// and passes the Luhn check (the gateway refuses any other card number), or more than 19 digits
// (it may hold one followed by other digits). The gateway's own token ids stay readable: a
// generated token (16 digits beginning with 9, no card network's range) is left as it is, and a
// Preserve 6.4 token always fails the Luhn check. So are shorter runs (order ids, amounts).
// Digits are those of any script and groups are joined as lib/card-digits.ts says (4111.1111.1111.1111,
// fullwidth digits): what the refusal below counts as a card number is masked too.
import { luhnValid, mask64 } from '../domain/card.js';
import { DIGIT_CLASS as D, digitAt, digitsOf, groupsOf, joinAt, LOOSE_CLASS, TIGHT_CLASS, widthAt } from './card-digits.js';

/**
 * A run of 12 or more digits, each pair perhaps apart by one separator that joins them (a number
 * written in groups, 5123 4500 0000 0008, 5123.4500.0000.0008), or by a percent-encoded space (%20
 * in a logged URL). The scan below finds the same runs without it.
 */
const DIGIT_RUN = new RegExp(`${D}(?:(?:${TIGHT_CLASS}|%20)?${D}|(?<=(?<!${D})${D}{3,6})${LOOSE_CLASS}(?=${D}{3,6}(?!${D}))${D}){11,}`, 'gu');
const ANY_DIGIT = new RegExp(D, 'gu');
/** An IPv4 address (a log's error text names one): its 12 digits in 4 groups are no card number. */
const IPV4 = /^(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])$/;

/** Whether a run of digits is masked: it could be a card number, and it is not token-shaped. */
function cardLike(digits: string): boolean {
  if (digits.length > 19) return true;
  if (digits.length === 16 && digits[0] === '9') return false;
  return luhnValid(digits);
}

/** The text with every run of digits that could be a card number masked (512345xxxxxx0008). */
export function maskCardNumbers(text: string): string {
  // Most texts (every request's path, with its token id) have nothing to mask: found without the
  // regular expression, and the text itself returned.
  return holdsCardLikeRun(text) ? maskCardNumbersByRegex(text) : text;
}

/**
 * maskCardNumbers, and where some of the text's digit groups still hold a card number that its
 * digits together are not ('+12 4222222222222', a country code before a 13-digit number; the same
 * sent as a reference, refused and kept by the journal), every digit of it but the first 6 and the
 * last 4 masked: for text kept as sent (a telephone number, a request body).
 */
export function maskCardNumbersInGroups(text: string): string {
  const masked = maskCardNumbers(text);
  if (!holdsCardNumber(masked)) return masked;
  const total = digitsOf(masked).length;
  let seen = 0;
  return masked.replace(ANY_DIGIT, (digit) => {
    const index = seen++;
    return index < 6 || index >= total - 4 ? digit : 'x';
  });
}

/** maskCardNumbers by the regular expression alone (the reference the scan above is tested against). */
export function maskCardNumbersByRegex(text: string): string {
  return text.replace(DIGIT_RUN, (run) => maskedRun(run, false) ?? run);
}

/**
 * A run DIGIT_RUN finds, masked (its digits as ASCII digits, 6.4); undefined when it is not
 * card-like. `plain`: the run is ASCII digits only (most runs: a token id), its own digits.
 */
function maskedRun(run: string, plain: boolean): string | undefined {
  const digits = plain ? run : digitsOf(run.includes('%') ? run.replace(/%20/g, '') : run);
  return cardLike(digits) && !IPV4.test(run) ? mask64(digits) : undefined;
}

/** Where the digit after a '%20' at `index` begins; -1 when there is none. */
const afterEncodedSpace = (text: string, index: number) =>
  text.charCodeAt(index + 1) === 50 && text.charCodeAt(index + 2) === 48 && digitAt(text, index + 3) >= 0 ? index + 3 : -1;

/** A run of digits and the separators joining them, as the scans below read one. */
interface Run { end: number; digits: number; ascii: boolean; encodedSpace: number }

/**
 * The run that begins with the digit at `start`: where it ends, how many digits it has, whether
 * they are all ASCII digits, and where its first '%20' is (-1: none). `encoded`: a '%20' joins two
 * digits too (a logged URL's encoded space), as DIGIT_RUN's does.
 */
function runFrom(text: string, start: number, encoded: boolean): Run {
  const n = text.length;
  let digits = 0;
  let j = start;
  let encodedSpace = -1;
  let ascii = true;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c >= 48 && c <= 57) {
      digits++;
      j++;
      continue;
    }
    if (c >= 0x660 && digitAt(text, j) >= 0) {
      digits++;
      ascii = false;
      j += widthAt(text, j);
      continue;
    }
    // (A separator is followed by a digit, counted by the next turn.)
    const next = encoded && c === 37 ? afterEncodedSpace(text, j) : joinAt(text, j);
    if (next < 0) break;
    if (c === 37 && encodedSpace < 0) encodedSpace = j;
    j = next;
  }
  return { end: j, digits, ascii, encodedSpace };
}

/**
 * Whether DIGIT_RUN finds a run that is card-like: the runs it matches, found the way it finds them
 * (from the first digit, as long as the next is a digit or one separator and a digit), without it.
 */
function holdsCardLikeRun(text: string): boolean {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (digitAt(text, i) < 0) {
      i++;
      continue;
    }
    const run = runFrom(text, i, true);
    if (run.digits < 12) {
      // No match here. The expression tries again at each next character, and from a digit of this
      // run it finds the rest of this run, shorter: only the digits of a '%20' begin another run.
      i = run.encodedSpace >= 0 ? run.encodedSpace + 1 : run.end;
      continue;
    }
    if (maskedRun(text.slice(i, run.end), run.ascii && run.digits === run.end - i) !== undefined) return true;
    // A match: the expression goes on after it.
    i = run.end;
  }
  return false;
}

/**
 * Whether a text holds a card number, for refusing one sent in a free-text field (stricter in what
 * it counts than the masking above, which also masks 12-digit runs and runs of more than 19
 * digits: a refusal must not hit ordinary references). A card number is 13 to 19 digits passing
 * Luhn, not next to another digit, digits of any script, written together or in groups apart by
 * one separator that joins them (6011 0009 9013 9424, 6011.0009.9013.9424: lib/card-digits.ts);
 * any run of whole groups counts, so a number written among other groups
 * ("ref 12 6011000990139424 2030") is found. An unbroken run of more than 19 digits holds none (no
 * card has as many digits, and where one would begin is unknown), nor does a gateway token id (16
 * digits beginning with 9), nor a UUID.
 */
export function holdsCardNumber(text: string): boolean {
  const n = text.length;
  if (n < 13) return false; // (most strings of a body: too short to hold 13 digits)
  let i = 0;
  while (i < n) {
    if (digitAt(text, i) < 0) {
      i++;
      continue;
    }
    // The run from i (most runs are short: nothing to look at).
    const { end, digits, ascii } = runFrom(text, i, false);
    if (digits >= 13) {
      const run = text.slice(i, end);
      if (groupsHoldCardNumber(ascii && digits === run.length ? [run] : groupsOf(run)) && !inUuid(text, i, end)) return true;
    }
    i = end;
  }
  return false;
}

/** A UUID, written as one (8-4-4-4-12 hex digits). */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * Whether the run of digits from `start` to `end` lies inside a UUID: the gateway's own ids
 * (notifications, events) are UUIDs, and the digit groups of about one UUID in a thousand (the
 * fourth group and the digits that begin the fifth) are 13 to 19 digits passing Luhn; so are those
 * of the UUIDs merchants send as references. A UUID is no card number, as a token id is not.
 */
function inUuid(text: string, start: number, end: number): boolean {
  // A UUID holding the run begins at most 35 characters before it.
  const from = Math.max(0, start - 35);
  const near = text.slice(from, Math.min(text.length, end + 35));
  for (const match of near.matchAll(UUID)) {
    if (from + match.index <= start && from + match.index + match[0].length >= end) return true;
  }
  return false;
}

/** Whether some run of consecutive whole groups has 13-19 digits and is card-number-like. */
function groupsHoldCardNumber(groups: readonly string[]): boolean {
  for (let first = 0; first < groups.length; first++) {
    let digits = '';
    for (let last = first; last < groups.length; last++) {
      digits += groups[last];
      if (digits.length > 19) break;
      if (digits.length >= 13 && !(digits.length === 16 && digits[0] === '9') && luhnValid(digits)) return true;
    }
  }
  return false;
}
