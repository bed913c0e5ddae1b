// Compact JSON with the keys of every object sorted alphabetically, as the real gateway writes
// its bodies. A bigint is written as a JSON integer literal (order ids reach 9999999999999999,
// beyond the integers a double holds exactly); undefined members are left out.
//
// The replies of routes with a complete response schema are written by serializers compiled from
// it (plugins/openapi.ts), byte for byte the same; this one writes everything else (error bodies,
// request fingerprints, admin pages), so it is tuned too: objects whose keys are already in order
// (most are: the response builders write them sorted) are not sorted again, the text is built by
// concatenation, and the quoted form of a member name is computed once.

import { isBigIntObject, isBooleanObject, isNumberObject, isStringObject } from 'node:util/types';

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

/**
 * Sort member names in place by UTF-16 code units (Array.prototype.sort's default order). Objects
 * have a few members: an insertion sort, which allocates nothing (V8's sort makes work arrays on
 * every call, for the request fingerprint's two objects on every pay); a long list goes to the
 * built-in sort.
 */
function sortNames(keys: string[]): void {
  if (keys.length > 16) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
}

function objectJson(record: Record<string, unknown>): string {
  const keys = Object.keys(record);
  // Sorted already? One pass of the comparison Array.prototype.sort uses (UTF-16 code units).
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) {
      sortNames(keys);
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

/**
 * What `JSON.parse(JSON.stringify(value))` returns, deeply frozen, without writing and parsing the
 * text: a plain copy that drops what JSON drops (undefined members, functions, symbols), turns
 * what it turns (toJSON, boxed primitives, -0, NaN and ±Infinity to null, array holes to null)
 * and throws where it throws (a BigInt). The store caches such copies of the events it writes
 * (store/sqlite.ts): the same value a read of the row parses, at about half the cost.
 */
function isPlain(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === Array.prototype;
}

export function frozenJsonCopy(value: unknown, key = ''): unknown {
  return copyOf(value, key, inheritsEnumerable());
}

/**
 * Whether a plain object inherits enumerable members (someone added one to Object.prototype):
 * for...in would list them, JSON does not. Asked once per copy (no member to list: a few ns).
 */
function inheritsEnumerable(): boolean {
  for (const _ in Object.prototype) return true;
  return false;
}

function copyOf(value: unknown, key: string, inherited: boolean): unknown {
  if ((typeof value === 'object' && value !== null) || typeof value === 'function' || typeof value === 'bigint') {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (key: string) => unknown).call(value, key);
  }
  // A plain object or array (nearly every value) is no boxed primitive: no calls into C++ to ask
  // (an object made a boxed primitive and given Object's or Array's prototype is taken as plain).
  if (typeof value === 'object' && value !== null && !isPlain(value)) {
    if (isNumberObject(value)) value = Number(value);
    else if (isStringObject(value)) value = String(value);
    else if (isBooleanObject(value)) value = value.valueOf();
    else if (isBigIntObject(value)) value = value.valueOf();
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value + 0 : null; // + 0: -0 is written 0
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const length = (value as unknown[]).length;
        const copy = new Array<unknown>(length);
        for (let i = 0; i < length; i++) {
          const member = copyOf((value as unknown[])[i], String(i), inherited);
          copy[i] = member === undefined ? null : member;
        }
        return Object.freeze(copy);
      }
      const record = value as Record<string, unknown>;
      const copy: Record<string, unknown> = {};
      // for...in lists a plain object's own enumerable names in Object.keys's order, without
      // making their array (garbage on every pay), when nothing is inherited; other objects
      // (a null prototype, a class instance) and a polluted Object.prototype: Object.keys.
      if (!inherited && Object.getPrototypeOf(record) === Object.prototype) {
        for (const name in record) addMember(copy, name, copyOf(record[name], name, inherited));
      } else {
        for (const name of Object.keys(record)) addMember(copy, name, copyOf(record[name], name, inherited));
      }
      return Object.freeze(copy);
    }
    default:
      return undefined; // undefined, a function, a symbol
  }
}

function addMember(copy: Record<string, unknown>, name: string, member: unknown): void {
  if (member === undefined) return;
  // JSON.parse makes "__proto__" an own member; an assignment would set the prototype.
  if (name === '__proto__') Object.defineProperty(copy, name, { value: member, enumerable: true, writable: true, configurable: true });
  else copy[name] = member;
}

/** Frozen in place, deeply: events in the stores' caches are shared by every reader, so nobody may change them (a change throws). */
export function frozen<T>(value: T): T {
  freezeDeep(value, inheritsEnumerable());
  return value;
}

/** A plain object's members by for...in and an array's by index: no array of values made per object. */
function freezeDeep(value: unknown, inherited: boolean): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) freezeDeep(value[i], inherited);
  } else if (!inherited && Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    for (const name in record) freezeDeep(record[name], inherited);
  } else {
    for (const member of Object.values(value)) freezeDeep(member, inherited);
  }
  Object.freeze(value);
}
