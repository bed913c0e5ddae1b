// Card numbers never appear in plaintext in an error text or a log line: any run of 12-19 digits
// (the lengths of card numbers, Luhn-valid or not: a mistyped card number is still one) is shown
// the way the gateway shows card numbers, its first 6 and last 4 digits kept (mask64).
import { mask64 } from '../domain/card.js';

const CARD_LIKE = /(?<![0-9])[0-9]{12,19}(?![0-9])/g;

/** The text with every run of 12-19 digits masked (512345xxxxxx0008). */
export function maskCardNumbers(text: string): string {
  return text.replace(CARD_LIKE, (digits) => mask64(digits));
}
