// What a reader may learn of an event's data without parsing it, where a store holds the data as
// its JSON text until first read (the PostgreSQL store's events of the log: store/postgres/rows.ts).
// A reactor that handles one case of a frequent event type (a payment's UNKNOWN outcome) asks this
// first, and parses only the events whose text may hold it; the request journal asks it of the
// metadata, which names another process's request in another instance's events.

/** The key of an event's look at its data's JSON text (undefined once parsed, or never held). */
export const DATA_TEXT: unique symbol = Symbol('tokengate.dataText');

/** The same look at its metadata's JSON text. */
export const METADATA_TEXT: unique symbol = Symbol('tokengate.metadataText');

interface WithText {
  readonly [DATA_TEXT]?: () => string | undefined;
  readonly [METADATA_TEXT]?: () => string | undefined;
}

const mayMention = (text: string | undefined, word: string): boolean => text === undefined || text.includes(word) || text.includes('\\u');

/**
 * Whether `event.data` may hold a string that contains `word`. False only when the data's JSON
 * text, still unparsed, proves it does not: the text lacks `word`, and has no `\u` escape (the
 * only escape that can spell a letter or digit; `word` is to be letters, digits, '_' or '-').
 * An event without a text (parsed, or any other store's) may: true.
 */
export function dataMayMention(event: object, word: string): boolean {
  return mayMention((event as WithText)[DATA_TEXT]?.(), word);
}

/** As dataMayMention, of `event.metadata` (an event's requestId: the journal's own requests). */
export function metadataMayMention(event: object, word: string): boolean {
  return mayMention((event as WithText)[METADATA_TEXT]?.(), word);
}
