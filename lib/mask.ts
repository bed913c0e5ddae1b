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
  return text.replace(DIGIT_RUN, (run) => {
    const digits = run.replace(/ |-|%20/g, '');
    return cardLike(digits) ? mask64(digits) : run;
  });
}
