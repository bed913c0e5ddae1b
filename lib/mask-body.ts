// A request or response body as the request journal keeps it (services/journal/): a copy with
// every secret masked the way the rest of tokengate masks it, made before anything is kept.
//   - a card number (a member `number`, as in sourceOfFunds.provided.card.number): 6.4, as the
//     events keep it (mask64), whether the gateway accepted it or not (a refused number may be a
//     real one with a typo);
//   - a security code (`securityCode`): every character 'x', as a payment's fingerprint keeps it;
//   - a bank account number (`bankAccountNumber`): all but the last 4 'x', as answers show it;
//   - NVP's `apiPassword`: "[redacted]", as the log's censor writes it;
//   - every other string (and a number of 12 digits or more): card-number-like runs masked
//     (lib/mask.ts), as in a log line, and a card number among a string's digit groups (a refused
//     reference '12 4222222222222', a telephone number); a session id drawn by the gateway stays readable.
// NVP's fields are flat and dotted (`sourceOfFunds.provided.card.number`): a member is known by
// its last name. Deeper than MAX_DEPTH (a refused body may nest thousands deep) is cut.
import { mask64 } from '../domain/card.js';
import { maskBankAccount } from '../domain/token/accounts.js';
import { maskCardNumbers, maskCardNumbersInGroups } from './mask.js';

const SESSION_ID = /^SESSION[0-9]{24}$/;
const SESSION_ID_LENGTH = 31;
/** Levels below the body kept: as deep as the gateway accepts (MAX_NESTING of plugins/request-values.ts). */
const MAX_DEPTH = 32;
export const TOO_DEEP = '[too deep]';

/** A secret member's value masked; undefined when the member holds no secret. */
function maskedSecret(key: string, text: string): string | undefined {
  const dot = key.lastIndexOf('.');
  switch (dot < 0 ? key : key.slice(dot + 1)) {
    case 'number': return mask64(text);
    case 'securityCode': return 'x'.repeat(text.length);
    case 'bankAccountNumber': return maskBankAccount(text);
    case 'apiPassword': return '[redacted]';
    default: return undefined;
  }
}

/** A copy of `value` (parsed JSON, or NVP's fields) with every secret masked. */
export function maskedBody(value: unknown, key = '', depth = 0): unknown {
  switch (typeof value) {
    case 'string': {
      const secret = maskedSecret(key, value);
      if (secret !== undefined) return secret;
      // Shorter than a card number's 12 digits (most strings of a body): nothing to mask.
      if (value.length < 12) return value;
      return value.length === SESSION_ID_LENGTH && SESSION_ID.test(value) ? value : maskCardNumbersInGroups(value);
    }
    case 'number': {
      const secret = maskedSecret(key, String(value));
      if (secret !== undefined) return secret;
      if (Math.abs(value) < 1e11) return value;
      const text = String(value);
      const masked = maskCardNumbers(text);
      return masked === text ? value : masked;
    }
    case 'object':
      if (value === null) return null;
      if (depth >= MAX_DEPTH) return TOO_DEEP;
      return Array.isArray(value) ? value.map((item) => maskedBody(item, key, depth + 1)) : maskedObject(value as Record<string, unknown>, depth);
    default:
      return value;
  }
}

function maskedObject(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(value)) {
    const masked = maskedBody(value[name], name, depth + 1);
    // A member's name is text the client wrote too: a card number sent as one is masked.
    const shown = name.length < 12 ? name : maskCardNumbers(name);
    // A member named __proto__ (JSON.parse makes it an own member) stays a member, not a prototype.
    if (shown === '__proto__') Object.defineProperty(out, shown, { value: masked, enumerable: true, writable: true, configurable: true });
    else out[shown] = masked;
  }
  return out;
}

/**
 * What may need masking in a JSON text as sent: an escape (`\u0035` spells a digit), a number's
 * exponent (`5.1e15` is a 16-digit number), a member whose name says it holds a secret (a security
 * code only in its plain form, `"securityCode":"123"`, which SECURITY_CODE masks in the text).
 */
const SECRET_MARK = /\\|[0-9][eE]|(?:number|Number|apiPassword)"|[^"]securityCode"|"securityCode"(?!\s*:\s*"[^"]*")/;
const SECURITY_CODE = /("securityCode"\s*:\s*")([^"]*)"/g;

/**
 * Whether a text has fewer digits than a card number's 12, all ASCII (nothing from U+0660 on: a
 * digit of another script, or a separator lib/card-digits.ts joins groups with): then it holds no
 * run lib/mask.ts would mask, told by one pass without its scans (a Pay with token body has 7).
 */
function fewDigits(text: string): boolean {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x660) return false;
    if (c >= 48 && c <= 57 && ++digits >= 12) return false;
  }
  return true;
}

/**
 * A JSON body as the journal keeps it: one string, the masked copy's JSON text. The text as sent
 * (`sent`: `value` is its parse) is kept as it is, or with its security codes masked in place, when
 * a scan finds nothing else to mask in it: no copy of the body is made.
 */
export function maskedBodyText(value: unknown, sent?: string): string {
  if (sent !== undefined && !SECRET_MARK.test(sent) && (fewDigits(sent) || maskCardNumbersInGroups(sent) === sent)) {
    return sent.includes('"securityCode"') ? sent.replace(SECURITY_CODE, (_all, before: string, code: string) => `${before}${'x'.repeat(code.length)}"`) : sent;
  }
  return JSON.stringify(maskedBody(value)) ?? 'null';
}
