// Account identifiers and masking of account numbers. Pure functions; no I/O.
import { mask64 } from '../card.js';

export type CardNumberMasking = '6.4' | '0.4';

/** Bank account numbers: every character but the last 4 becomes 'x' (spec: "returned masked"). */
export function maskBankAccount(number: string): string {
  return 'x'.repeat(Math.max(0, number.length - 4)) + number.slice(-4);
}

/**
 * A card number as a response shows it: 6.4 by default, or the merchant's stricter 0.4 (spec:
 * "masked per merchant masking setting or the 6.4 pattern, whichever is stricter"). Works on the
 * clear number and on a number already masked 6.4.
 */
export function maskCardNumber(number: string, masking: CardNumberMasking = '6.4'): string {
  const masked = /x/.test(number) ? number : mask64(number);
  return masking === '0.4' ? 'x'.repeat(Math.max(0, masked.length - 4)) + masked.slice(-4) : masked;
}

/**
 * The account identifier that unique-account management matches on, by source of funds: the card
 * number, the bank account (routing or institution and transit numbers with the account number,
 * separators ignored), or the billing agreement id. Only ever stored as a keyed hash.
 */
export type AccountIdentifier =
  | { type: 'CARD'; number: string }
  | { type: 'ACH'; routingNumber: string; bankAccountNumber: string }
  | { type: 'DIRECT_DEBIT_CANADA'; financialInstitutionNumber: string; transitNumber: string; bankAccountNumber: string }
  | { type: 'WALLET'; billingAgreementId: string };

const plain = (accountNumber: string) => accountNumber.replace(/[ /-]/g, '').toUpperCase();

/** The text that is hashed (HMAC) to name the reservation stream of an account identifier. */
export function accountKey(repositoryId: string, account: AccountIdentifier): string {
  switch (account.type) {
    // Cards keep the key of the first release, so existing reservations still match.
    case 'CARD': return `card:${repositoryId}:${account.number}`;
    case 'ACH': return `ach:${repositoryId}:${account.routingNumber}:${plain(account.bankAccountNumber)}`;
    case 'DIRECT_DEBIT_CANADA':
      return `ddc:${repositoryId}:${account.financialInstitutionNumber}:${account.transitNumber}:${plain(account.bankAccountNumber)}`;
    case 'WALLET': return `wallet:${repositoryId}:${account.billingAgreementId}`;
  }
}

export const sameAccount = (a: AccountIdentifier, b: AccountIdentifier): boolean => accountKey('', a) === accountKey('', b);

/**
 * Device account numbers (DPANs) of this sandbox: card numbers in these ranges stand for the
 * account number of a device or wallet rather than the card itself (spec rule 5: no scheme
 * tokenization for a DPAN-based order). The masked 6.4 number keeps them, so a recorded payment
 * tells without opening a sealed number.
 */
const DEVICE_ACCOUNT_RANGES: readonly string[] = ['520473', '489537'];

export const isDeviceAccountNumber = (number: string): boolean => DEVICE_ACCOUNT_RANGES.some((range) => number.startsWith(range));
