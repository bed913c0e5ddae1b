// Ids for the tests to send (order ids, transaction ids, references): unique per call, and never
// read as a card number. A random UUID's digit groups, joined across its dashes, pass as a card
// number (13 to 19 digits passing Luhn) about once in 360 UUIDs; the gateway masks such a run
// wherever it shows one (logs, history, journal), and refuses it in a body unless the whole UUID is
// written as one (lib/mask.ts), so a test sending raw or prefixed UUIDs fails at random.
import { randomUUID } from 'node:crypto';

/** The longest id the gateway takes (order.id, transaction.id, references: 1 to 40 characters). */
export const MAX_ID_LENGTH = 40;

/** Digit d written as the letter DIGIT_LETTERS[d], outside a UUID's own letters a-f. */
const DIGIT_LETTERS = 'ghijklmnop';

/**
 * A new id: `prefix` and a random UUID with its digits written as letters (36 characters, a-p and
 * '-', as random as the UUID). The prefix may be at most 4 characters, so that the id fits in 40.
 */
export function uniqueId(prefix = ''): string {
  const id = prefix + randomUUID().replace(/[0-9]/g, (d) => DIGIT_LETTERS[Number(d)]!);
  if (id.length > MAX_ID_LENGTH) throw new Error(`uniqueId: prefix '${prefix}' makes the id longer than ${MAX_ID_LENGTH} characters`);
  return id;
}
