// Card numbers never appear in plaintext in an error text or a log line (one rule for both): a run
// of digits that could be a card number is shown the way the gateway shows card numbers, its
// first 6 and last 4 digits kept (mask64). A run could be a card number when it has 12-19 digits
// and passes the Luhn check (the gateway refuses any other card number), or more than 19 digits
// (it may hold one followed by other digits). The gateway's own token ids stay readable: a
// generated token (16 digits beginning with 9, no card network's range) is left as it is, and a
// Preserve 6.4 token always fails the Luhn check. So are shorter runs (order ids, amounts).
import { luhnValid, mask64 } from '../domain/card.js';

/**
 * A run of 12 or more digits, each pair perhaps apart by one space or '-' (a number written in
 * groups, 5123 4500 0000 0008), or percent-encoded as such (%20 in a logged URL).
 */
const DIGIT_RUN = /[0-9](?:(?: |-|%20)?[0-9]){11,}/g;

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
  const total = masked.replace(/[^0-9]/g, '').length;
  let seen = 0;
  return masked.replace(/[0-9]/g, (digit) => {
    const index = seen++;
    return index < 6 || index >= total - 4 ? digit : 'x';
  });
}

/** maskCardNumbers by the regular expression alone (the reference the scan above is tested against). */
export function maskCardNumbersByRegex(text: string): string {
  return text.replace(DIGIT_RUN, (run) => {
    const digits = run.replace(/ |-|%20/g, '');
    return cardLike(digits) ? mask64(digits) : run;
  });
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Whether DIGIT_RUN finds a run that is card-like: the runs it matches, found the way it finds them
 * (from the first digit, as long as the next is a digit or one separator and a digit), without it.
 */
function holdsCardLikeRun(text: string): boolean {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    let digits = 1;
    let j = i + 1;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (isDigit(c)) {
        digits++;
        j += 1;
      } else if ((c === 32 || c === 45) && isDigit(text.charCodeAt(j + 1))) {
        digits++;
        j += 2;
      } else if (c === 37 && text.charCodeAt(j + 1) === 50 && text.charCodeAt(j + 2) === 48 && isDigit(text.charCodeAt(j + 3))) {
        digits++;
        j += 4;
      } else {
        break;
      }
    }
    if (digits < 12) {
      // No match here: the expression tries again at the next character (a run starting inside
      // this one may be longer: the digits of a '%20' begin one).
      i = start + 1;
      continue;
    }
    const run = text.slice(start, j);
    if (cardLike(digits === run.length ? run : run.replace(/ |-|%20/g, ''))) return true;
    // A match: the expression goes on after it.
    i = j;
  }
  return false;
}

/**
 * Whether a text holds a card number, for refusing one sent in a free-text field (stricter in what
 * it counts than the masking above, which also masks 12-digit runs and runs of more than 19
 * digits: a refusal must not hit ordinary references). A card number is 13 to 19 digits passing
 * Luhn, not next to another digit, written together or in groups apart by one space or '-'
 * (6011 0009 9013 9424); any run of whole groups counts, so a number written among other groups
 * ("ref 12 6011000990139424 2030") is found. An unbroken run of more than 19 digits holds none (no
 * card has as many digits, and where one would begin is unknown), nor does a gateway token id (16
 * digits beginning with 9), nor a UUID.
 */
export function holdsCardNumber(text: string): boolean {
  const n = text.length;
  if (n < 13) return false; // (most strings of a body: too short to hold 13 digits)
  let i = 0;
  while (i < n) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    // The run from i: its end and how many digits it has (most runs are short: nothing to look at).
    let digits = 0;
    let j = i;
    for (;;) {
      while (j < n && isDigit(text.charCodeAt(j))) { j++; digits++; }
      const c = text.charCodeAt(j);
      if ((c === 32 || c === 45) && isDigit(text.charCodeAt(j + 1))) { j++; continue; }
      break;
    }
    if (digits >= 13 && groupsHoldCardNumber(text.slice(i, j).split(/[ -]/)) && !inUuid(text, i, j)) return true;
    i = j;
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
