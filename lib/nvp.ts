// The NVP wire format of the gateway (name-value pairs): a request is a form
// (application/x-www-form-urlencoded) of dotted field names (`order.id=7&sourceOfFunds.type=CARD`),
// list items numbered from 0 (`interaction.tokens[0]=...`, `order.item[0].name=...`), an answer
// the same (`result=SUCCESS&response.gatewayCode=APPROVED`, `transaction[0].id`).
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

/** A step of a field's name: a member of a group, or an item of a list (`a[0].b` is a, 0, b). */
type Step = string | number;

/** One dotted segment: a member's name, then any list indexes (`leg[0]`, `a[0][1]`). */
const SEGMENT = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;
const INDEX = /\[([^[\]]*)\]/g;
/** An index as the gateway writes one: 0, 1, ... (no sign, no leading zero, no more than 9 digits). */
const CANONICAL_INDEX = /^(0|[1-9][0-9]{0,8})$/;

/** The name up to the step at `i`, as the gateway writes it: `a[0].b`. Written only when thrown. */
function nameTo(steps: readonly Step[], i: number): string {
  return steps.slice(0, i + 1).map((s, k) => (typeof s === 'number' ? `[${s}]` : k === 0 ? s : `.${s}`)).join('');
}

/** A field's name as steps; a name no field can have (an empty segment, `a[`, `[0]`) is UNSUPPORTED, a bad index INVALID. */
function stepsOf(name: string): Step[] {
  const steps: Step[] = [];
  for (const segment of name.split('.')) {
    const parts = SEGMENT.exec(segment);
    if (parts === null || FORBIDDEN_SEGMENT.test(parts[1]!)) throw new NvpShapeError(`Unexpected parameter '${name.slice(0, 100)}'`, name, 'UNSUPPORTED');
    steps.push(parts[1]!);
    for (const [, index] of parts[2]!.matchAll(INDEX)) {
      if (!CANONICAL_INDEX.test(index!)) {
        throw new NvpShapeError(`Value is invalid. '[${index!.slice(0, 20)}]' is no list index: items are numbered 0, 1, 2, ... (at most 9 digits)`, name);
      }
      steps.push(Number(index));
    }
  }
  return steps;
}

/**
 * A list while the form is read: its items by index (a map: an index sent is never a length
 * allocated), and where it goes once every name is read (its holder, under its step).
 */
class Items {
  readonly byIndex = new Map<number, unknown>();
  constructor(readonly holder: Group | Items, readonly steps: readonly Step[], readonly at: number) {}
}

type Kind = 'a list of items' | 'a group of fields';
const kindOf = (node: unknown): Kind => (node instanceof Items ? 'a list of items' : 'a group of fields');

/**
 * The step at `i` names two of a value, a group and a list (`order=1&order.id=2`). Written only
 * when thrown: a name of thousands of steps would otherwise be joined once per step.
 */
function clash(steps: readonly Step[], i: number, kind: Kind, other?: Kind): NvpShapeError {
  const at = nameTo(steps, i);
  const what = other === undefined ? `${kind}: it has no value of its own` : `both ${kind} and ${other}`;
  return new NvpShapeError(`Value is invalid. '${at}' is ${what}`, at);
}

const childOf = (node: Group | Items, step: Step): unknown =>
  (node instanceof Items ? node.byIndex.get(step as number) : Object.hasOwn(node, step) ? node[step as string] : undefined);

function put(node: Group | Items, step: Step, value: unknown): void {
  if (node instanceof Items) node.byIndex.set(step as number, value);
  else node[step as string] = value;
}

/** A list's items in index order; a gap (an index with no item before it) is refused on the first item past it. */
function itemsOf(list: Items): unknown[] {
  const items: unknown[] = [];
  for (let i = 0; i < list.byIndex.size; i++) {
    if (!list.byIndex.has(i)) {
      let after = Infinity;
      for (const index of list.byIndex.keys()) if (index > i && index < after) after = index;
      const name = nameTo(list.steps, list.at);
      throw new NvpShapeError(`Value is invalid. List items are numbered from 0 without a gap: '${name}[${i}]' is missing`, `${name}[${after}]`);
    }
    items.push(list.byIndex.get(i));
  }
  return items;
}

/**
 * Dotted names as the groups of the JSON API (`order.id=7` is `{ order: { id: '7' } }`), and
 * indexed ones as its lists (`order.item[0].name=Tea` is `{ order: { item: [{ name: 'Tea' }] } }`):
 * the gateway numbers items from 0, without a gap.
 */
export function nested(fields: NvpFields): Group {
  const root: Group = {};
  const lists: Items[] = [];
  for (const name of Object.keys(fields).sort()) {
    const steps = stepsOf(name);
    let node: Group | Items = root;
    for (const [i, step] of steps.entries()) {
      const existing = childOf(node, step);
      if (i === steps.length - 1) {
        if (existing !== undefined) throw clash(steps, i, kindOf(existing));
        put(node, step, fields[name]);
        break;
      }
      const wantsList = typeof steps[i + 1] === 'number';
      const wanted: Kind = wantsList ? 'a list of items' : 'a group of fields';
      if (existing === undefined) {
        const made: Group | Items = wantsList ? new Items(node, steps, i) : {};
        if (made instanceof Items) lists.push(made);
        put(node, step, made);
        node = made;
      } else if (typeof existing === 'string') {
        throw clash(steps, i, wanted);
      } else if (kindOf(existing) !== wanted) {
        throw clash(steps, i, kindOf(existing), wanted);
      } else {
        node = existing as Group | Items;
      }
    }
  }
  // Inner lists were made after the lists holding them: made arrays first, into their holders.
  for (const list of lists.reverse()) put(list.holder, list.steps[list.at]!, itemsOf(list));
  return root;
}

/**
 * Form values (all strings) as the types a JSON schema asks for: an integer or number from its
 * digits, a boolean from `true` or `false`; anything else stays the string it was (and the schema
 * then names it).
 */
export function typedBySchema(schema: unknown, value: unknown): unknown {
  const s = schema as { type?: unknown; properties?: Record<string, unknown>; additionalProperties?: unknown; items?: unknown };
  if (Array.isArray(value)) return s.items === undefined ? value : value.map((item) => typedBySchema(s.items, item));
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
