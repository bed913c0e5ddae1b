// The NVP wire format of the gateway (name-value pairs): a request is a form
// (application/x-www-form-urlencoded) of dotted field names (`order.id=7&sourceOfFunds.type=CARD`),
// an answer the same (`result=SUCCESS&response.gatewayCode=APPROVED`, list items `transaction[0].id`).
// Here only the format: pairs to the groups of the JSON API and back. Pure.

/** A request that is not well-formed NVP: `field` names the offending name. */
export class NvpShapeError extends Error {
  override name = 'NvpShapeError';
  constructor(message: string, readonly field: string, readonly validationType: 'INVALID' | 'UNSUPPORTED' = 'INVALID') { super(message); }
}

export type NvpFields = Record<string, string>;
type Group = Record<string, unknown>;

/** Name segments that would reach an object's prototype are never names of the API. */
const FORBIDDEN_SEGMENT = /^(__proto__|constructor|prototype)$/;

/** A form body as its fields (`+` a space, percent-escapes decoded); a name given twice is refused. */
export function parseForm(text: string): NvpFields {
  const fields: NvpFields = Object.create(null) as NvpFields;
  for (const [name, value] of new URLSearchParams(text)) {
    if (name === '') continue;
    if (Object.hasOwn(fields, name)) throw new NvpShapeError('Value is invalid. The field is given more than once', name);
    fields[name] = value;
  }
  return fields;
}

/**
 * A name that is both a value and a group, named up to the segment at `i`. Written only when
 * thrown: a name of thousands of segments would otherwise be joined once per segment.
 */
function notAGroup(segments: readonly string[], i: number): NvpShapeError {
  const at = segments.slice(0, i + 1).join('.');
  return new NvpShapeError(`Value is invalid. '${at}' is a group of fields: it has no value of its own`, at);
}

/** Dotted names as the groups of the JSON API: `order.id=7` is `{ order: { id: '7' } }`. */
export function nested(fields: NvpFields): Group {
  const root: Group = {};
  for (const name of Object.keys(fields).sort()) {
    const segments = name.split('.');
    if (segments.some((segment) => segment === '' || FORBIDDEN_SEGMENT.test(segment))) {
      throw new NvpShapeError(`Unexpected parameter '${name.slice(0, 100)}'`, name, 'UNSUPPORTED');
    }
    let group = root;
    for (const [i, segment] of segments.entries()) {
      if (i === segments.length - 1) {
        if (Object.hasOwn(group, segment)) throw notAGroup(segments, i);
        group[segment] = fields[name];
        break;
      }
      const next = group[segment];
      if (typeof next === 'string') throw notAGroup(segments, i);
      group = (next as Group | undefined) ?? (group[segment] = {}) as Group;
    }
  }
  return root;
}

/**
 * Form values (all strings) as the types a JSON schema asks for: an integer or number from its
 * digits, a boolean from `true` or `false`; anything else stays the string it was (and the schema
 * then names it).
 */
export function typedBySchema(schema: unknown, value: unknown): unknown {
  const s = schema as { type?: unknown; properties?: Record<string, unknown>; additionalProperties?: unknown };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const out: Group = {};
    for (const [name, member] of Object.entries(value as Group)) {
      const memberSchema = s.properties?.[name] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      out[name] = memberSchema === undefined ? member : typedBySchema(memberSchema, member);
    }
    return out;
  }
  if (typeof value !== 'string') return value;
  if ((s.type === 'integer' || s.type === 'number') && /^-?[0-9]+(\.[0-9]+)?$/.test(value)) return Number(value);
  if (s.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** A JSON answer as NVP pairs: dotted names, list items `name[i]`, members in sorted order. */
export function flatten(value: unknown, prefix = '', out: Array<[string, string]> = []): Array<[string, string]> {
  if (value === undefined || value === null) return out;
  if (Array.isArray(value)) {
    value.forEach((item, i) => flatten(item, `${prefix}[${i}]`, out));
  } else if (typeof value === 'object') {
    for (const name of Object.keys(value).sort()) flatten((value as Group)[name], prefix === '' ? name : `${prefix}.${name}`, out);
  } else {
    out.push([prefix, String(value)]);
  }
  return out;
}

/** Form encoding of a value: percent-escapes, a space as `+`. */
const encodeValue = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
/** Names keep their dots and brackets readable (`transaction[0].id`). */
const encodeName = (name: string) => encodeURIComponent(name).replace(/%5B/g, '[').replace(/%5D/g, ']');

/** The pairs as an NVP body: `name=value&...`. */
export function encodeNvp(pairs: ReadonlyArray<[string, string]>): string {
  return pairs.map(([name, value]) => `${encodeName(name)}=${encodeValue(value)}`).join('&');
}
