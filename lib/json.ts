// Compact JSON with the keys of every object sorted alphabetically, as the real gateway writes
// its bodies. A bigint is written as a JSON integer literal (order ids reach 9999999999999999,
// beyond the integers a double holds exactly); undefined members are left out.
export function sortedJson(value: unknown): string {
  switch (typeof value) {
    case 'string': return JSON.stringify(value);
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'bigint': return value.toString();
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : sortedJson(v))).join(',')}]`;
      const record = value as Record<string, unknown>;
      if (typeof (record as { toJSON?: unknown }).toJSON === 'function') return sortedJson((record as { toJSON(): unknown }).toJSON());
      const parts: string[] = [];
      for (const key of Object.keys(record).sort()) {
        const member = record[key];
        if (member === undefined || typeof member === 'function') continue;
        parts.push(`${JSON.stringify(key)}:${sortedJson(member)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default: return 'null';
  }
}
