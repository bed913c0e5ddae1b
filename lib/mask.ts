// Card numbers never appear in plaintext in an error text or a log line: any run of 12 or more
// digits (card numbers have 12-19, Luhn-valid or not: a mistyped card number is still one; a
// longer run may hold one followed by other digits) is shown the way the gateway shows card
// numbers, its first 6 and last 4 digits kept (mask64). Shorter runs (amounts, order ids of up to
// 11 digits) are left as they are.
import { mask64 } from '../domain/card.js';

const CARD_LIKE = /[0-9]{12,}/g;

/** The text with every run of 12 or more digits masked (512345xxxxxx0008). */
export function maskCardNumbers(text: string): string {
  return text.replace(CARD_LIKE, (digits) => mask64(digits));
}
