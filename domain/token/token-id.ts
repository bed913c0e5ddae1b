// Generation of gateway token ids (spec: "a generated token has 16 digits, begins with 9, and
// ends in a Luhn check digit"; Preserve 6.4 keeps the card's first 6 and last 4 digits).
import { luhnCheckDigit, luhnValid } from '../card.js';

export type TokenGeneration = 'RANDOM' | 'PRESERVE_6_4' | 'MERCHANT_SUPPLIED';

/** `randomDigits(n)` returns n decimal digits; passed in so the domain stays pure. */
export type RandomDigits = (count: number) => string;

/** RANDOM: '9', 14 random digits, Luhn check digit. Never a valid card number of any network. */
export function randomToken(randomDigits: RandomDigits): string {
  const body = '9' + randomDigits(14);
  return body + luhnCheckDigit(body);
}

/**
 * PRESERVE_6_4: same length as the card, first 6 and last 4 digits kept, middle random.
 * The middle is chosen so that the token fails the Luhn check, so a token can never be
 * mistaken for (or charged as) the card number itself.
 */
export function preserve64Token(cardNumber: string, randomDigits: RandomDigits): string {
  const middleLength = cardNumber.length - 10;
  if (middleLength < 1) throw new RangeError('PRESERVE_6_4 needs a card number of at least 11 digits');
  const head = cardNumber.slice(0, 6);
  const tail = cardNumber.slice(-4);
  let middle = randomDigits(middleLength);
  if (luhnValid(head + middle + tail)) {
    // Changing one digit by one always breaks a valid Luhn sum.
    const last = (Number(middle.slice(-1)) + 1) % 10;
    middle = middle.slice(0, -1) + String(last);
  }
  return head + middle + tail;
}

export function generateToken(
  strategy: Exclude<TokenGeneration, 'MERCHANT_SUPPLIED'>,
  cardNumber: string,
  randomDigits: RandomDigits,
): string {
  return strategy === 'RANDOM' ? randomToken(randomDigits) : preserve64Token(cardNumber, randomDigits);
}

/**
 * A merchant-supplied token id (Tokenize, PUT .../token/{tokenid}): spec {tokenid} alphanumeric
 * 1-40 (the route's schema checks that); 'generated' asks a generating repository for an id, so it
 * is never a merchant's id; and never a card number (13 to 19 digits passing Luhn): the id names
 * the token's stream and is in every event of the token, where a card number must never be.
 * Returns why the id is refused, or undefined.
 */
export function suppliedTokenIdProblem(token: string): string | undefined {
  if (token === 'generated') return "Value 'generated' is invalid. The repository uses merchant-supplied token ids: 'generated' only asks a repository that generates its ids for one";
  if (/^[0-9]{13,19}$/.test(token) && luhnValid(token)) return 'Value is invalid. A token id must not be a card number';
  return undefined;
}
