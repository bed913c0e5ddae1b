// The text of a JSON number as the client wrote it. JSON.parse turns `0.009999999999999999999`
// into the double 0.01 and `1e12` into 1000000000000; an amount is checked by its text as written
// (one rule for a string and a number), so the body parser keeps the literal of every number
// member with a chosen name, by the object that holds it. Node 20's JSON.parse does not hand a
// reviver the source text, so the parsed text is walked again, beside the value JSON.parse made.
//
// The walk assumes a text JSON.parse accepted (lib/json-syntax.ts is the checker that names where
// a text breaks the grammar); it is iterative, so a deep nest cannot overflow the stack. Where a
// member name is written twice, JSON.parse keeps the last, and so does this.

const LITERALS = new WeakMap<object, Map<string, string>>();

/** A number token could be in the text: after ':', '[' or ',' (a false alarm costs one walk). */
const MAY_HOLD_A_NUMBER = /[:[,]\s*-?[0-9]/;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

interface Frame { holder: unknown; array: boolean; index: number; key: string | undefined; expectKey: boolean }

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * Keep the literal text of every number member named in `names`, by its holder in `value`, the
 * result of JSON.parse(text). Cheap when the text holds no number at all.
 */
export function keepNumberLiterals(text: string, value: unknown, names: ReadonlySet<string>): void {
  if (!isObject(value) || !MAY_HOLD_A_NUMBER.test(text)) return;
  const stack: Frame[] = [];
  let top: Frame | undefined;
  let i = 0;
  // The value the next token stands for, within what JSON.parse made (undefined: not kept there).
  const current = (): unknown => {
    if (top === undefined) return value;
    if (!isObject(top.holder)) return undefined;
    if (top.array) return Array.isArray(top.holder) ? top.holder[top.index] : undefined;
    return top.key !== undefined && Object.hasOwn(top.holder, top.key) ? top.holder[top.key] : undefined;
  };
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) { // '{' '['
      const frame: Frame = { holder: current(), array: c === 0x5b, index: 0, key: undefined, expectKey: c === 0x7b };
      if (top) stack.push(top);
      top = frame;
      i++;
    } else if (c === 0x7d || c === 0x5d) { // '}' ']'
      top = stack.pop();
      i++;
    } else if (c === 0x2c) { // ','
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
      i++;
    } else if (c === 0x22) { // '"'
      const end = stringEnd(text, i);
      if (top && !top.array && top.expectKey) {
        const raw = text.slice(i + 1, end - 1);
        top.key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        top.expectKey = false;
      }
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) { // '-' or a digit
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)?.[0] ?? text[i]!;
      if (top && !top.array && top.key !== undefined && names.has(top.key) && isObject(top.holder)) {
        let kept = LITERALS.get(top.holder);
        if (kept === undefined) LITERALS.set(top.holder, (kept = new Map()));
        kept.set(top.key, literal);
      }
      i += literal.length;
    } else {
      i++; // whitespace, ':', the letters of true, false and null
    }
  }
}

/** Where the string token starting at `start` (its opening quote) ends: after its closing quote. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) return i + 1;
    else i++;
  }
  return i;
}

/**
 * The text a client wrote for `holder[name]`, a number, when the body parser kept it (and it is
 * still the text of the value there); undefined otherwise.
 */
export function numberLiteral(holder: unknown, name: string): string | undefined {
  if (!isObject(holder)) return undefined;
  const literal = LITERALS.get(holder)?.get(name);
  return literal !== undefined && Number(literal) === holder[name] ? literal : undefined;
}
