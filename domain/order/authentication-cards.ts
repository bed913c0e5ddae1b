// The 3-D Secure emulator of the real test environment: its table of test cards (what Initiate
// Authentication and Authenticate Payer answer for each) and the outcomes its challenge page
// offers. docs/triggers.md ("3-D Secure test cards") is the user's copy of these tables; the tests
// read it. A card is found by its 6.4 mask, the only form of the number the gateway keeps.
import { mask64 } from '../card.js';

/** authentication.3ds2.transactionStatus (EMV 3DS transStatus) of a finished authentication. */
export type TransactionStatus = 'Y' | 'A' | 'I' | 'N' | 'U' | 'R';

/** What the emulator does with a card at Authenticate Payer (or already at Initiate). */
export type CardBehaviour =
  /** Initiate Authentication fails with the gateway's generic error; nothing is recorded. */
  | { kind: 'initiateError' }
  /** Authenticate Payer fails with the gateway's generic error; nothing is recorded. */
  | { kind: 'authenticateError' }
  /** Authenticate Payer answers AUTHENTICATION_UNAVAILABLE (the "recoverable exception"). */
  | { kind: 'unavailable' }
  /** The ACS decides without the payer. */
  | { kind: 'frictionless'; status: TransactionStatus; reason?: string; eci?: string; token?: string }
  /** The payer is sent to the challenge page. */
  | { kind: 'challenge' };

/** Which ECI values a brand's ACS uses: Mastercard's (02 full, 01 attempted, 00 none) or the others' (05, 06, 07). */
export type EciFamily = 'MASTERCARD' | 'VISA';

export interface TestCard {
  /** The full test number (only its mask is ever kept or compared). */
  number: string;
  /** The brand as the test table names it. */
  brand: string;
  scenario: string;
  /** The card's ACS has a method URL: Initiate Authentication's answer carries the method call. */
  method: boolean;
  behaviour: CardBehaviour;
  eciFamily: EciFamily;
}

const MC_TOKEN = 'mHyn+7YFi1EUAREAAAAvNUe6Hv8=';
const ATTEMPT_TOKEN = 'nHyn+7YFi1EUAREAAAAvNUe6Hv8=';
const UNIONPAY_TOKEN = 'ABCQAwUANHQYQoQYARWTUEFnAAA=';
/** The authentication token after a challenge passed (the test environment's, recorded for Mastercard). */
export const CHALLENGE_TOKEN = 'kHyn+7YFi1EUAREAAAAvNUe6Hv8=';

const challenge: CardBehaviour = { kind: 'challenge' };
const y = (eci: string, token: string): CardBehaviour => ({ kind: 'frictionless', status: 'Y', eci, token });
const a = (eci: string, token: string): CardBehaviour => ({ kind: 'frictionless', status: 'A', eci, token });
const rejected = (reason?: string): CardBehaviour => ({ kind: 'frictionless', status: 'R', ...(reason ? { reason } : {}) });

const MASTERCARD_FAMILY = new Set(['Mastercard', 'Maestro']);

type Row = [numbers: string[], brand: string, scenario: string, method: boolean, behaviour: CardBehaviour, family?: EciFamily];


/**
 * The rows of the test environment's "3DS Test Cards" table (browser channel), in its order. Left
 * out: its PayPak, Jaywan, ITMX and Mada rows (brands the gateway here does not know; the PayPak
 * numbers also fail the Luhn check every card number must pass).
 */
const ROWS: Row[] = [
  [['5123450000000008', '2223000000000007'], 'Mastercard', 'Challenge', true, challenge],
  [['5123456789012346'], 'Mastercard', 'Frictionless', true, y('02', MC_TOKEN)],
  [['5555555555000018'], 'Mastercard', 'Frictionless, no method', false, y('02', MC_TOKEN)],
  [['5500005555555559'], 'Mastercard', 'Authentication attempted', false, a('01', ATTEMPT_TOKEN)],
  [['5506900140100503'], 'Mastercard', 'Authentication rejected', false, rejected('04')],
  [['5210760000000004'], 'Mastercard', 'Error during Initiate Authentication', false, { kind: 'initiateError' }],
  [['5455031257390496', '5455031252665454'], 'Mastercard', 'Error during Authenticate Payer', false, { kind: 'authenticateError' }],
  [['5123459999998221'], 'Mastercard', 'Authentication unavailable during Authenticate Payer', false, { kind: 'unavailable' }],
  [['4440000009900010'], 'Visa', 'Challenge', false, challenge],
  [['4440000042200014'], 'Visa', 'Frictionless', true, y('05', MC_TOKEN)],
  [['4440000042200022'], 'Visa', 'Authentication attempted', false, a('06', ATTEMPT_TOKEN)],
  [['371881733404002'], 'American Express', 'Challenge', false, challenge],
  [['371881887105009'], 'American Express', 'Frictionless', true, y('05', MC_TOKEN)],
  [['5000000000000000005'], 'Maestro', 'PSD2 exemptions and trusted merchants', false,
    { kind: 'frictionless', status: 'I', reason: '81', eci: '06', token: 'kNyn+7YFi1EUAREAAAAvNUe6Hv8=' }],
  [['6201089999995464'], 'UnionPay', 'Frictionless', true, y('05', UNIONPAY_TOKEN)],
  [['6201089999991455'], 'UnionPay', 'Challenge', true, challenge],
  [['6213249999999991208'], 'UnionPay', 'Challenge, 19-digit card', true, challenge],
  [['6201089999994020'], 'UnionPay', 'Authentication attempted', false, a('06', UNIONPAY_TOKEN)],
  [['6201080999990852'], 'UnionPay', 'Authentication unavailable', false, { kind: 'frictionless', status: 'U', reason: '01', eci: '07' }],
  [['6201080999990423'], 'UnionPay', 'Not authenticated', false, { kind: 'frictionless', status: 'N', reason: '04' }],
  [['3528249999991755'], 'JCB', 'Challenge', true, challenge],
  [['3528249999991748'], 'JCB', 'Challenge, no method', false, challenge],
  [['3528249999991821'], 'JCB', 'Frictionless', true, y('05', MC_TOKEN)],
  [['3528249999981236'], 'JCB', 'Authentication rejected', true, rejected()],
  [['3600000000000115'], 'Diners', 'Challenge', true, challenge],
  [['3600000000000123'], 'Diners', 'Challenge, no method', false, challenge],
  [['3600000000000131'], 'Diners', 'Frictionless', true, y('05', 'AAICBycxlQAAAAAAGTGVAAAAAAA=')],
  [['36721601220030'], 'Diners', 'Frictionless', true, y('05', 'AJkBBGBIJGhlhpFBFEgkAAAAAAA=')],
  [['3600000000000172'], 'Diners', 'Authentication rejected', true, rejected()],
  [['6445644564456445'], 'Discover', 'Challenge', true, challenge],
  [['6445644564456460'], 'Discover', 'Challenge, no method', false, challenge],
  [['6445644564456411'], 'Discover', 'Frictionless', true, y('05', MC_TOKEN)],
  [['6587060001006370'], 'Discover', 'Frictionless', true, y('05', 'AJkBBGBIJGhlhpFBFEgkAAAAAAA=')],
  [['6445644564456155'], 'Discover', 'Authentication rejected', true, rejected()],
];

export const TEST_CARDS: readonly TestCard[] = ROWS.flatMap(([numbers, brand, scenario, method, behaviour, family]) =>
  numbers.map((number) => ({ number, brand, scenario, method, behaviour, eciFamily: family ?? (MASTERCARD_FAMILY.has(brand) ? 'MASTERCARD' : 'VISA') })));

const BY_MASK: ReadonlyMap<string, TestCard> = new Map(TEST_CARDS.map((card) => [mask64(card.number), card]));

/** The test card with this 6.4 mask; undefined: a card the emulator does not know (3-D Secure not supported). */
export const testCardOf = (maskedNumber: string): TestCard | undefined => BY_MASK.get(maskedNumber);

/** The outcomes the challenge page offers (its select#selectAuthResult, values as the real emulator's). */
export const CHALLENGE_OPTIONS = [
  'AUTHENTICATED', 'UNAUTHENTICATED', 'CANCELLED_AUTHENTICATION', 'AUTHENTICATION_NOT_AVAILABLE', 'AUTHENTICATION_REJECTED',
  'AUTHENTICATION_SERVER_ERROR',
] as const;
export type ChallengeOption = (typeof CHALLENGE_OPTIONS)[number];

export const isChallengeOption = (value: string): value is ChallengeOption => (CHALLENGE_OPTIONS as readonly string[]).includes(value);

/** The one-time code the challenge page accepts (it shows it): any other code fails the authentication. */
export const CHALLENGE_CODE = '123456';

/** What each challenge answer makes of the authentication: its transStatus (none: the ACS failed), challengeCancel. */
export const CHALLENGE_OUTCOMES: Readonly<Record<ChallengeOption, { status?: TransactionStatus; challengeCancel?: string }>> = {
  AUTHENTICATED: { status: 'Y' },
  UNAUTHENTICATED: { status: 'N' },
  CANCELLED_AUTHENTICATION: { status: 'N', challengeCancel: '01' },
  AUTHENTICATION_NOT_AVAILABLE: { status: 'U' },
  AUTHENTICATION_REJECTED: { status: 'R' },
  AUTHENTICATION_SERVER_ERROR: {},
};

/** The ECI after a challenge: full authentication, or none. */
export const challengeEci = (family: EciFamily, passed: boolean): string =>
  family === 'MASTERCARD' ? (passed ? '02' : '00') : (passed ? '05' : '07');
