// Counts JSON.parse's calls on texts that hold a marker. Imported first by a test file, before
// anything loads pg: pg-types binds JSON.parse when it loads (its parser of json columns), so this
// sees that parse as well as any other.
const original = JSON.parse;
const counts = new Map<string, number>();

JSON.parse = function parse(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown): unknown {
  if (typeof text === 'string') for (const [marker, n] of counts) if (text.includes(marker)) counts.set(marker, n + 1);
  return original.call(JSON, text, reviver) as unknown;
} as typeof JSON.parse;

/** From now on, counts the parses of texts holding `marker`: the function tells how many so far. */
export function parsesOf(marker: string): () => number {
  counts.set(marker, 0);
  return () => counts.get(marker) ?? 0;
}
