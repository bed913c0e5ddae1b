// What a reader may learn of an event's data without parsing it, where a store holds the data as
// its JSON text until first read (the PostgreSQL store's events of the log: store/postgres/rows.ts).
// A reactor that handles one case of a frequent event type (a payment's UNKNOWN outcome) asks this
// first, and parses only the events whose text may hold it.

/** The key of an event's look at its data's JSON text (undefined once parsed, or never held). */
export const DATA_TEXT: unique symbol = Symbol('tokengate.dataText');

interface WithText { readonly [DATA_TEXT]?: () => string | undefined }

/**
 * Whether `event.data` may hold a string that contains `word`. False only when the data's JSON
 * text, still unparsed, proves it does not: the text lacks `word`, and has no `\u` escape (the
 * only escape that can spell a letter or digit; `word` is to be letters, digits, '_' or '-').
 * An event without a text (parsed, or any other store's) may: true.
 */
export function dataMayMention(event: object, word: string): boolean {
  const text = (event as WithText)[DATA_TEXT]?.();
  return text === undefined || text.includes(word) || text.includes('\\u');
}
