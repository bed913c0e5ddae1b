// Building blocks of the request schemas. Every constraint carries a `description` in the
// gateway's words; plugins/errors.ts turns a failed constraint into the gateway's explanation.
import { Type, type TSchema, type TString, type TUnsafe, type ObjectOptions, type TProperties } from '@sinclair/typebox';

export const Str = (minLength: number, maxLength: number, description?: string): TString =>
  Type.String({ minLength, maxLength, ...(description ? { description } : {}) });

export const Pattern = (minLength: number, maxLength: number, pattern: string, description: string): TString =>
  Type.String({ minLength, maxLength, pattern, description });

/** A string enumeration as a plain JSON Schema `enum` (one clear error instead of an anyOf). */
export const StringEnum = <const T extends readonly string[]>(values: T, description?: string): TUnsafe<T[number]> =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** An object that refuses members the spec does not list (validationType UNSUPPORTED). */
export const Strict = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

export const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** Request decimal rule of the spec: characters 0-9 and '.', a valid decimal number, 1-14. */
export const RequestDecimal = () =>
  Pattern(1, 14, '^[0-9]+(\\.[0-9]+)?$', 'a decimal number such as 100.00');

export const Digits = (min: number, max: number) =>
  Pattern(min, max, `^[0-9]{${min},${max}}$`, min === max ? `exactly ${min} digits` : `${min} to ${max} digits`);

export const Ascii = (min: number, max: number) => Pattern(min, max, '^[\\x20-\\x7e]*$', 'ASCII text');

export const Alpha3 = (what: string) => Pattern(3, 3, '^[A-Z]{3}$', `three upper-case letters A-Z (${what})`);

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
export const IPV4_PATTERN = `^(${OCTET}\\.){3}${OCTET}$`;

/** Fields whose values never appear in an explanation, a log line or an event. */
export const SENSITIVE_FIELD = /(^|\.)(number|securityCode|bankAccountNumber|deviceSpecificNumber|accountIdentifier)$/;
