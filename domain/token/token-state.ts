// The token aggregate's state, folded from its stream (domain/token/token.ts holds its decider).
import type { SchemeTokenDetails, StoredCard, StoredShipping, StoredSourceOfFunds, TokenCreated, TokenEvent, TokenUpdated, Verification } from '../events.js';

export type AccountSource = Exclude<StoredSourceOfFunds, { type: 'CARD' }>;

/** What every valid token has; optional members are present only when they say something. */
interface ValidBase {
  status: 'VALID';
  merchantId: string;
  repositoryId: string;
  token: string;
  createdAt: string;
  lastUpdated: string;
  /** Absent for the default, BASIC_VERIFICATION_SUCCESSFUL. */
  verification?: Verification;
  schemeToken?: SchemeTokenDetails;
  shipping?: StoredShipping;
}
export interface CardToken extends ValidBase { card: StoredCard; account?: undefined }
/** A token holding bank account (ACH, DIRECT_DEBIT_CANADA) or wallet billing-agreement details. */
export interface AccountToken extends ValidBase { card?: undefined; account: AccountSource }
export type ValidToken = CardToken | AccountToken;

export type TokenState =
  | { status: 'NONE' }
  | { status: 'DELETED'; repositoryId: string; token: string; deletedAt: string }
  | ValidToken;

export const initialTokenState = (): TokenState => ({ status: 'NONE' });

export const sourceOfFundsOf = (state: ValidToken): StoredSourceOfFunds =>
  state.card ? { type: 'CARD', card: state.card } : state.account;

/** The members of `value` that are not undefined, in the same order (a loop: no entry arrays). */
export const present = <T extends object>(value: T): T => {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = member;
  }
  return out as T;
};

function created(d: TokenCreated['data']): ValidToken {
  const base = present({
    status: 'VALID' as const, merchantId: d.merchantId, repositoryId: d.repositoryId, token: d.token,
    createdAt: d.createdAt, lastUpdated: d.createdAt,
    // Events written by hand (tests, imports) may lack a verification: BASIC, the default.
    verification: d.verification === undefined || d.verification.strategy === 'BASIC' ? undefined : d.verification,
    schemeToken: d.schemeToken, shipping: d.shipping,
  }) as ValidBase & { card?: StoredCard; account?: AccountSource };
  // The card or the account added as the last member of the fresh object: the same object as
  // `{ ...base, card }`, which is slower on Node 20.
  const sof = d.sourceOfFunds;
  if (sof.type === 'CARD') base.card = sof.card;
  else base.account = sof;
  return base as ValidToken;
}

function updated(state: ValidToken, d: TokenUpdated['data']): ValidToken {
  const extra = present({ verification: d.verification, schemeToken: d.schemeToken, shipping: d.shipping });
  if (state.card) return { ...state, ...extra, lastUpdated: d.updatedAt, card: d.card ?? state.card };
  const { account } = state;
  const next: AccountSource =
    d.ach && account.type === 'ACH' ? { type: 'ACH', ach: d.ach }
    : d.directDebitCanada && account.type === 'DIRECT_DEBIT_CANADA' ? { type: 'DIRECT_DEBIT_CANADA', directDebitCanada: d.directDebitCanada }
    : d.wallet && account.type === 'WALLET' ? { type: 'WALLET', wallet: d.wallet }
    : account;
  return { ...state, ...extra, lastUpdated: d.updatedAt, account: next };
}

export function evolveToken(state: TokenState, event: TokenEvent): TokenState {
  switch (event.type) {
    case 'TokenCreated':
      return created(event.data);
    case 'TokenUpdated':
      return state.status === 'VALID' ? updated(state, event.data) : state;
    case 'SchemeTokenStatusChanged':
      return state.status === 'VALID' ? { ...state, schemeToken: event.data.schemeToken } : state;
    case 'TokenDeleted':
      return { status: 'DELETED', repositoryId: event.data.repositoryId, token: event.data.token, deletedAt: event.data.deletedAt };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
