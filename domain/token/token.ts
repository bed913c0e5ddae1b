// The token aggregate's decider (its state and evolve: domain/token/token-state.ts, re-exported here).
import { InvalidRequest } from '../errors.js';
import type {
  SchemeTokenDetails, SchemeTokenStatusChanged, StoredShipping, StoredSourceOfFunds, TokenCreated, TokenDeleted,
  TokenEvent, TokenOrigin, TokenUpdated, ProvisioningMode, Verification,
} from '../events.js';
import type { TokenGeneration } from './token-id.js';
import { present, sourceOfFundsOf, type TokenState } from './token-state.js';

export { evolveToken, initialTokenState, sourceOfFundsOf, type AccountSource, type AccountToken, type CardToken, type TokenState, type ValidToken } from './token-state.js';

/** Any source of funds, with the verification and scheme-token decisions already taken. */
export interface CreateToken {
  type: 'CreateToken';
  merchantId: string;
  repositoryId: string;
  tokenGeneration: TokenGeneration;
  token: string;
  sourceOfFunds: StoredSourceOfFunds;
  verification: Verification;
  schemeToken?: SchemeTokenDetails;
  provisioningMode?: ProvisioningMode;
  shipping?: StoredShipping;
  origin?: TokenOrigin;
  now: string;
}

/** The candidate token id is already taken in the repository: generate another one. */
export class TokenIdTaken extends Error {
  constructor(readonly token: string) {
    super('token id already in use');
    this.name = 'TokenIdTaken';
  }
}

/**
 * New details for an existing token: the same account seen again (unique-account management) or
 * a request naming the token in sourceOfFunds.token. `accountChanged`: the account identifier
 * (card or bank account number, billing agreement id) differs from the stored one; the caller
 * reuses the stored sealed value when it does not.
 */
export interface UpdateTokenDetails {
  type: 'UpdateTokenDetails';
  merchantId: string;
  tokenGeneration: TokenGeneration;
  sourceOfFunds: StoredSourceOfFunds;
  accountChanged: boolean;
  verification?: Verification;
  schemeToken?: SchemeTokenDetails;
  shipping?: StoredShipping;
  origin?: TokenOrigin;
  now: string;
}

/** The scheme-token reactor's decision for pending work that fell due. */
export interface ChangeSchemeTokenStatus {
  type: 'ChangeSchemeTokenStatus';
  merchantId: string;
  schemeToken: SchemeTokenDetails;
}

export class TokenNotFound extends Error {
  override name = 'TokenNotFound';
}

/** Delete Token: the token stops working and its card data is forgotten. */
export interface DeleteToken {
  type: 'DeleteToken';
  merchantId: string;
  now: string;
}

export type TokenCommand = CreateToken | UpdateTokenDetails | ChangeSchemeTokenStatus | DeleteToken;

export function decideToken(state: TokenState, command: CreateToken): TokenCreated[];
export function decideToken(state: TokenState, command: UpdateTokenDetails): TokenUpdated[];
export function decideToken(state: TokenState, command: ChangeSchemeTokenStatus): SchemeTokenStatusChanged[];
export function decideToken(state: TokenState, command: DeleteToken): TokenDeleted[];
export function decideToken(state: TokenState, command: TokenCommand): TokenEvent[];
export function decideToken(state: TokenState, command: TokenCommand): TokenEvent[] {
  switch (command.type) {
    case 'DeleteToken': {
      if (state.status !== 'VALID') throw new TokenNotFound('no such token');
      return [{ type: 'TokenDeleted', data: { merchantId: command.merchantId, repositoryId: state.repositoryId, token: state.token, deletedAt: command.now } }];
    }
    case 'UpdateTokenDetails':
      return decideUpdate(state, command);
    case 'ChangeSchemeTokenStatus': {
      if (state.status !== 'VALID' || !state.schemeToken) return [];
      return [{
        type: 'SchemeTokenStatusChanged',
        data: { merchantId: command.merchantId, repositoryId: state.repositoryId, token: state.token, previousStatus: state.schemeToken.status, schemeToken: command.schemeToken },
      }];
    }
    case 'CreateToken':
      return decideCreate(state, command);
    default: {
      const unreachable: never = command;
      return unreachable;
    }
  }
}

function decideCreate(state: TokenState, c: CreateToken): TokenCreated[] {
  if (state.status !== 'NONE') throw new TokenIdTaken(c.token);
  return [{
    type: 'TokenCreated',
    data: {
      merchantId: c.merchantId,
      repositoryId: c.repositoryId,
      token: c.token,
      tokenGeneration: c.tokenGeneration,
      sourceOfFunds: c.sourceOfFunds,
      verification: c.verification,
      status: 'VALID',
      createdAt: c.now,
      ...present({ shipping: c.shipping, schemeToken: c.schemeToken, provisioningMode: c.provisioningMode, origin: c.origin }),
    },
  }];
}

const GROUP = { CARD: 'card', ACH: 'ach', DIRECT_DEBIT_CANADA: 'directDebitCanada', WALLET: 'wallet' } as const;
const NUMBER_MEMBER = { CARD: 'number', ACH: 'bankAccountNumber', DIRECT_DEBIT_CANADA: 'bankAccountNumber', WALLET: 'billingAgreement' } as const;
/** The request field of the account identifier (a wallet's is the billing agreement's id). */
export const ACCOUNT_FIELD = {
  CARD: 'sourceOfFunds.provided.card.number',
  ACH: 'sourceOfFunds.provided.ach.bankAccountNumber',
  DIRECT_DEBIT_CANADA: 'sourceOfFunds.provided.directDebitCanada.bankAccountNumber',
  WALLET: 'sourceOfFunds.provided.wallet.billingAgreement.id',
} as const;

/** Members of a stored group that differ (sealed values aside: they differ on every seal). */
function changedMembers(before: object, after: object, prefix: string): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    .filter((k) => !k.endsWith('Sealed') && JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => `${prefix}.${k}`);
}

function decideUpdate(state: TokenState, c: UpdateTokenDetails): TokenUpdated[] {
  if (state.status !== 'VALID') throw new TokenNotFound('no such token');
  const before = sourceOfFundsOf(state);
  const after = c.sourceOfFunds;
  if (before.type !== after.type) {
    throw new InvalidRequest(`Value '${after.type}' is invalid. Token '${state.token}' holds ${before.type} details`, 'sourceOfFunds.type');
  }
  const group = GROUP[after.type];
  const prefix = `sourceOfFunds.provided.${group}`;
  // Spec (Create or Update Token): Preserve 6.4 tokens keep their account identifier for good.
  if (c.accountChanged && c.tokenGeneration === 'PRESERVE_6_4') {
    throw new InvalidRequest(
      `Value is invalid. Token repository '${state.repositoryId}' uses Preserve 6.4 token generation: the account identifier of token '${state.token}' cannot change; store the new account as a new token`,
      ACCOUNT_FIELD[after.type],
    );
  }
  const oldGroup = (before as Record<string, unknown>)[group] as object;
  const newGroup = (after as Record<string, unknown>)[group] as object;
  const changed = changedMembers(oldGroup, newGroup, prefix);
  if (c.accountChanged && !changed.includes(`${prefix}.${NUMBER_MEMBER[after.type]}`)) changed.push(`${prefix}.${NUMBER_MEMBER[after.type]}`);
  const shippingChanged = c.shipping !== undefined && JSON.stringify(c.shipping) !== JSON.stringify(state.shipping);
  if (shippingChanged) changed.push('shipping');
  if (changed.length === 0) return [];
  return [{
    type: 'TokenUpdated',
    data: {
      merchantId: c.merchantId,
      repositoryId: state.repositoryId,
      token: state.token,
      [group]: newGroup,
      ...present({ shipping: shippingChanged ? c.shipping : undefined, verification: c.verification, schemeToken: c.schemeToken, origin: c.origin }),
      changed: changed.sort(),
      updatedAt: c.now,
    },
  }];
}
