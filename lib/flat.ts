// A string kept long, in one piece. A string made by concatenation (a request id, a stream name,
// the request journal's text of an entry's events) is a tree of its pieces, one object each, until
// something flattens it; kept so, it costs the collector every piece each time it traces what is
// kept. Flattening replaces the tree in place with one copy.

/** The same string, flattened (a number's parse of it flattens it first). */
export function flat(text: string): string {
  Number(text);
  return text;
}
