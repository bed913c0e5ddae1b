// Account identifiers and account numbers of token requests: what unique-account management
// matches on, what a stored token holds (opened from its sealed value), and the details as
// stored, numbers sealed under a key of their own (or the token's existing sealed value).
import { maskBankAccount, sameAccount, type AccountIdentifier } from '../../domain/token/accounts.js';
import { detectBrand, fundingMethodOf, mask64, schemeOf } from '../../domain/card.js';
import type { StoredSourceOfFunds } from '../../domain/events.js';
import type { ValidToken } from '../../domain/token/token.js';
import type { Gateway } from '../gateway.js';
import type { Sealer } from '../../store/sealing.js';
import type { SourceDetails } from './token-sources.js';

export function accountOf(details: SourceDetails): AccountIdentifier {
  switch (details.type) {
    case 'CARD': return { type: 'CARD', number: details.number };
    case 'ACH': return { type: 'ACH', routingNumber: details.ach.routingNumber, bankAccountNumber: details.ach.bankAccountNumber };
    case 'DIRECT_DEBIT_CANADA': {
      const d = details.directDebitCanada;
      return { type: 'DIRECT_DEBIT_CANADA', financialInstitutionNumber: d.financialInstitutionNumber, transitNumber: d.transitNumber, bankAccountNumber: d.bankAccountNumber };
    }
    case 'WALLET': return { type: 'WALLET', billingAgreementId: details.wallet.billingAgreement.id };
  }
}

/** The account identifier a token holds, opened from its sealed value (undefined once shredded). */
export function heldAccount(gateway: { readonly sealer: Pick<Sealer, 'open'> }, state: ValidToken): AccountIdentifier | undefined {
  if (state.card) {
    const number = gateway.sealer.open(state.card.numberSealed);
    return number === undefined ? undefined : { type: 'CARD', number };
  }
  const account = state.account;
  if (account.type === 'WALLET') return { type: 'WALLET', billingAgreementId: account.wallet.billingAgreement.id };
  const group = account.type === 'ACH' ? account.ach : account.directDebitCanada;
  const number = gateway.sealer.open(group.bankAccountNumberSealed);
  if (number === undefined) return undefined;
  return account.type === 'ACH'
    ? { type: 'ACH', routingNumber: account.ach.routingNumber, bankAccountNumber: number }
    : { type: 'DIRECT_DEBIT_CANADA', financialInstitutionNumber: account.directDebitCanada.financialInstitutionNumber, transitNumber: account.directDebitCanada.transitNumber, bankAccountNumber: number };
}

export const holds = (gateway: Gateway, state: ValidToken, account: AccountIdentifier) => {
  const held = heldAccount(gateway, state);
  return held !== undefined && sameAccount(held, account);
};

/**
 * The details as stored: account numbers sealed under a new key of their own, or, when `reuse`
 * holds the same account, under its existing sealed value (so an unchanged number is no change).
 */
export function storedSource(gateway: Gateway, details: SourceDetails, reuse?: StoredSourceOfFunds): StoredSourceOfFunds {
  const sealed = (plain: string, previous: string | undefined) =>
    previous !== undefined && gateway.sealer.open(previous) === plain ? previous : gateway.sealer.sealNew(plain);
  switch (details.type) {
    case 'CARD': {
      const brand = detectBrand(details.number);
      const previous = reuse?.type === 'CARD' ? reuse.card.numberSealed : undefined;
      return {
        type: 'CARD',
        card: { numberSealed: sealed(details.number, previous), number: mask64(details.number), brand, scheme: schemeOf(brand), fundingMethod: fundingMethodOf(brand), expiry: details.expiry },
      };
    }
    case 'ACH': {
      const { bankAccountNumber, ...rest } = details.ach;
      return { type: 'ACH', ach: { ...rest, ...bankAccount(gateway, bankAccountNumber, reuse?.type === 'ACH' ? reuse.ach : undefined) } };
    }
    case 'DIRECT_DEBIT_CANADA': {
      const { bankAccountNumber, ...rest } = details.directDebitCanada;
      return { type: 'DIRECT_DEBIT_CANADA', directDebitCanada: { ...rest, ...bankAccount(gateway, bankAccountNumber, reuse?.type === 'DIRECT_DEBIT_CANADA' ? reuse.directDebitCanada : undefined) } };
    }
    case 'WALLET':
      return { type: 'WALLET', wallet: details.wallet };
  }
}

/** A bank account number as stored; the same account written with other separators stays as stored. */
function bankAccount(gateway: Gateway, plain: string, previous: { bankAccountNumberSealed: string; bankAccountNumber: string } | undefined) {
  const opened = previous ? gateway.sealer.open(previous.bankAccountNumberSealed) : undefined;
  if (previous && opened !== undefined && normalized(opened) === normalized(plain)) {
    return { bankAccountNumberSealed: previous.bankAccountNumberSealed, bankAccountNumber: previous.bankAccountNumber };
  }
  return { bankAccountNumberSealed: gateway.sealer.sealNew(plain), bankAccountNumber: maskBankAccount(plain) };
}

const normalized = (accountNumber: string) => accountNumber.replace(/[ /-]/g, '').toUpperCase();
