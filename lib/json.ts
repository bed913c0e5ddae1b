// Compact JSON with the keys of every object sorted alphabetically, as the real gateway writes
// its bodies. A bigint is written as a JSON integer literal (order ids reach 9999999999999999,
// beyond the integers a double holds exactly); undefined members are left out.
//
// The replies of routes with a complete response schema are written by serializers compiled from
// it (plugins/openapi.ts), byte for byte the same; this one writes everything else (error bodies,
// request fingerprints, admin pages), so it is tuned too: objects whose keys are already in order
// (most are: the response builders write them sorted) are not sorted again, the text is built by
// concatenation, and the quoted form of a member name is computed once.

/** Characters JSON.stringify escapes in a string: controls, '"', '\\' and (lone) surrogates. */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** `"name":` of each member name seen, bounded (names come from schemas, but keep it safe). */
const MEMBER_PREFIXES = new Map<string, string>();
const MAX_MEMBER_PREFIXES = 4096;

function memberPrefix(key: string): string {
  let prefix = MEMBER_PREFIXES.get(key);
  if (prefix === undefined) {
    prefix = `${JSON.stringify(key)}:`;
    if (MEMBER_PREFIXES.size < MAX_MEMBER_PREFIXES) MEMBER_PREFIXES.set(key, prefix);
  }
  return prefix;
}

/** JSON.stringify(text), without the call for the common text that needs no escape. */
const quoted = (text: string): string =>
  (text.length < 256 && !NEEDS_ESCAPE.test(text) ? `"${text}"` : JSON.stringify(text));

function objectJson(record: Record<string, unknown>): string {
  const keys = Object.keys(record);
  // Sorted already? One pass of the comparison Array.prototype.sort uses (UTF-16 code units).
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      keys.sort();
      break;
    }
  }
  let json = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = record[key];
    if (member === undefined || typeof member === 'function') continue;
    json += (json === '' ? '{' : ',') + memberPrefix(key) + sortedJson(member);
  }
  return json === '' ? '{}' : `${json}}`;
}

export function sortedJson(value: unknown): string {
  switch (typeof value) {
    case 'string': return quoted(value);
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'bigint': return value.toString();
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        let json = '[';
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          json += (i === 0 ? '' : ',') + (item === undefined ? 'null' : sortedJson(item));
        }
        return `${json}]`;
      }
      const record = value as Record<string, unknown>;
      if (typeof (record as { toJSON?: unknown }).toJSON === 'function') return sortedJson((record as { toJSON(): unknown }).toJSON());
      return objectJson(record);
    }
    default: return 'null';
  }
}
