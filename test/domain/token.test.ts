// The token decider, command by command, as production sends them: CreateToken
// (services/token/token-writes.ts writeToken), UpdateTokenDetails (token-writes.ts update),
// ChangeSchemeTokenStatus (services/token/scheme-tokens.ts) and DeleteToken (services/token/tokens.ts).
// given(events).when(command).then(events) or .thenThrows(error class).
import t, { type Test } from 'tap';
import { InvalidRequest } from '../../domain/errors.js';
import type {
  SchemeTokenDetails, StoredAch, StoredCard, StoredShipping, StoredSourceOfFunds, StoredWallet, TokenCreated, TokenDeleted, TokenEvent,
} from '../../domain/events.js';
import {
  decideToken, evolveToken, initialTokenState, TokenIdTaken, TokenNotFound,
  type ChangeSchemeTokenStatus, type CreateToken, type DeleteToken, type TokenCommand, type TokenState, type UpdateTokenDetails,
} from '../../domain/token/token.js';
import { deciderSpec } from '../helpers/decider.js';

const decide = (state: TokenState, command: TokenCommand): TokenEvent[] => decideToken(state, command);
const spec = deciderSpec({ decide, evolve: evolveToken, initialState: initialTokenState });

const MERCHANT = 'TESTMERCHANT01';
const CREATED_AT = '2026-11-21T12:00:00.000Z';
const LATER = '2026-12-01T00:00:00.000Z';
const BASIC = { strategy: 'BASIC', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' } as const;
const NONE = { strategy: 'NONE', gatewayCode: 'NO_VERIFICATION_PERFORMED' } as const;

const card: StoredCard = {
  numberSealed: 'sealed:v1:AAECAwQFBgcICQ',
  number: '512345xxxxxx0008',
  brand: 'MASTERCARD',
  scheme: 'MASTERCARD',
  fundingMethod: 'CREDIT',
  expiry: { month: 1, year: 39 },
};
const ach: StoredAch = {
  accountType: 'CONSUMER_CHECKING',
  bankAccountHolder: 'Jane Doe',
  bankAccountNumberSealed: 'sealed:v1:ACHACHACH',
  bankAccountNumber: 'xxxxxxxx6789',
  routingNumber: '011000015',
  secCode: 'WEB',
};
const wallet: StoredWallet = {
  accountEmail: 'jane@example.com',
  billingAgreement: { cardinality: 'MULTIPLE', id: 'B-5YM48367H7', name: 'Monthly' },
  payerId: 'PAYER01',
};
const shipping: StoredShipping = { address: { city: 'Springfield', country: 'USA' }, contact: { firstName: 'Jane', lastName: 'Doe' } };
const schemeToken: SchemeTokenDetails = {
  provider: 'MDES',
  status: 'PROVISIONING',
  statusTime: CREATED_AT,
  rule: 'expiry 01/39: ACTIVE after provisioning',
  nextActionAt: '2026-11-21T12:00:05.000Z',
};

const createCard = (overrides: Partial<CreateToken> = {}): CreateToken => ({
  type: 'CreateToken',
  merchantId: MERCHANT,
  repositoryId: 'repo-1',
  tokenGeneration: 'RANDOM',
  token: '9123456789012348',
  sourceOfFunds: { type: 'CARD', card },
  verification: BASIC,
  now: CREATED_AT,
  ...overrides,
});

/** The TokenCreated a command with no optional member gives (written out, not computed by the decider). */
const created = (sourceOfFunds: StoredSourceOfFunds, more: Partial<TokenCreated['data']> = {}): TokenCreated => ({
  type: 'TokenCreated',
  data: {
    merchantId: MERCHANT,
    repositoryId: 'repo-1',
    token: '9123456789012348',
    tokenGeneration: 'RANDOM',
    sourceOfFunds,
    verification: sourceOfFunds.type === 'CARD' ? BASIC : NONE,
    status: 'VALID',
    createdAt: CREATED_AT,
    ...more,
  },
});
const cardCreated = created({ type: 'CARD', card });
const achCreated = created({ type: 'ACH', ach });
const walletCreated = created({ type: 'WALLET', wallet }, { shipping });
const deleted: TokenDeleted = { type: 'TokenDeleted', data: { merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', deletedAt: LATER } };

const noClearNumbers = (t: Test, value: unknown) => {
  const json = JSON.stringify(value);
  t.notMatch(json, /5123450000000008|5123451234560016|000123456789|B-NEWAGREEMENT/, 'no clear account number');
  t.notMatch(json, /undefined/, 'no undefined member');
};

// ---------------------------------------------------------------- CreateToken

t.test('CreateToken (card): exactly one TokenCreated carrying the command', async (t) => {
  const events = spec(t).given([]).when(createCard()).then([{
    type: 'TokenCreated',
    data: {
      merchantId: 'TESTMERCHANT01',
      repositoryId: 'repo-1',
      token: '9123456789012348',
      tokenGeneration: 'RANDOM',
      sourceOfFunds: {
        type: 'CARD',
        card: {
          numberSealed: 'sealed:v1:AAECAwQFBgcICQ',
          number: '512345xxxxxx0008',
          brand: 'MASTERCARD',
          scheme: 'MASTERCARD',
          fundingMethod: 'CREDIT',
          expiry: { month: 1, year: 39 },
        },
      },
      verification: { strategy: 'BASIC', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' },
      status: 'VALID',
      createdAt: '2026-11-21T12:00:00.000Z',
    },
  }]);
  const data = events[0]!.data as Record<string, unknown>;
  for (const key of ['schemeToken', 'provisioningMode', 'shipping', 'origin']) t.notOk(key in data, `no ${key} member when the command has none`);
  noClearNumbers(t, events);
});

t.test('CreateToken (card, Preserve 6.4): the scheme token, provisioning mode and origin are kept; another card', async (t) => {
  const amex: StoredCard = {
    numberSealed: 'sealed:v1:ZZZ', number: '345678xxxxx4564', brand: 'AMEX', scheme: 'AMEX', fundingMethod: 'CHARGE', expiry: { month: 5, year: 39 },
  };
  const acquirer = { strategy: 'ACQUIRER', gatewayCode: 'APPROVED', currency: 'USD' } as const;
  spec(t).given([]).when(createCard({
    merchantId: 'TESTOTHER', repositoryId: 'repo-2', tokenGeneration: 'PRESERVE_6_4', token: '345678123454564',
    sourceOfFunds: { type: 'CARD', card: amex }, verification: acquirer, schemeToken, provisioningMode: 'ASYNCHRONOUS',
    origin: { sessionId: 'SESSION0001' }, now: '2027-01-02T03:04:05.006Z',
  })).then([{
    type: 'TokenCreated',
    data: {
      merchantId: 'TESTOTHER', repositoryId: 'repo-2', token: '345678123454564', tokenGeneration: 'PRESERVE_6_4',
      sourceOfFunds: { type: 'CARD', card: amex }, verification: acquirer, status: 'VALID', createdAt: '2027-01-02T03:04:05.006Z',
      schemeToken, provisioningMode: 'ASYNCHRONOUS', origin: { sessionId: 'SESSION0001' },
    },
  }]);
});

t.test('CreateToken (ACH bank account): one TokenCreated with the sealed, masked account and no verification', async (t) => {
  const events = spec(t).given([]).when(createCard({ sourceOfFunds: { type: 'ACH', ach }, verification: NONE })).then([achCreated]);
  noClearNumbers(t, events);
  t.strictSame(spec(t).given(events).state, {
    status: 'VALID', merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', createdAt: CREATED_AT, lastUpdated: CREATED_AT,
    verification: NONE, account: { type: 'ACH', ach },
  }, 'evolve: an account token (verification NONE kept: it is not the default)');
});

t.test('CreateToken (wallet billing agreement): the shipping details are kept', async (t) => {
  spec(t).given([]).when(createCard({ sourceOfFunds: { type: 'WALLET', wallet }, verification: NONE, shipping })).then([walletCreated]);
});

t.test('CreateToken of an id that exists throws TokenIdTaken naming the id', async (t) => {
  spec(t).given([cardCreated]).when(createCard({ sourceOfFunds: { type: 'CARD', card: { ...card, numberSealed: 'sealed:v1:other' } } }))
    .thenThrows(TokenIdTaken, (error) => {
      t.equal(error.token, '9123456789012348', 'names the taken id');
      t.equal(error.name, 'TokenIdTaken');
    });
});

t.test('CreateToken of the id of a deleted token throws TokenIdTaken: a deleted id is never given again', async (t) => {
  spec(t).given([cardCreated, deleted]).when(createCard()).thenThrows(TokenIdTaken, (error) => t.equal(error.token, '9123456789012348'));
});

t.test('evolve: TokenCreated builds a VALID state, without mutating the previous one', async (t) => {
  const before = initialTokenState();
  t.strictSame(before, { status: 'NONE' });
  const after = evolveToken(before, cardCreated);
  t.strictSame(before, { status: 'NONE' }, 'the previous state is not mutated');
  t.strictSame(after, {
    status: 'VALID', merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', card, createdAt: CREATED_AT, lastUpdated: CREATED_AT,
  });
});

// ---------------------------------------------------------------- UpdateTokenDetails

/** As token-writes.ts update() builds it: the stored sealed value reused when the account did not change. */
const update = (overrides: Partial<UpdateTokenDetails> = {}): UpdateTokenDetails => ({
  type: 'UpdateTokenDetails',
  merchantId: MERCHANT,
  tokenGeneration: 'RANDOM',
  sourceOfFunds: { type: 'CARD', card },
  accountChanged: false,
  now: LATER,
  ...overrides,
});
const newExpiry = { ...card, expiry: { month: 5, year: 39 } };

t.test('UpdateTokenDetails with a new expiry: one TokenUpdated of the card, naming the expiry', async (t) => {
  const events = spec(t).given([cardCreated]).when(update({ sourceOfFunds: { type: 'CARD', card: newExpiry } })).then([{
    type: 'TokenUpdated',
    data: {
      merchantId: 'TESTMERCHANT01',
      repositoryId: 'repo-1',
      token: '9123456789012348',
      card: { ...card, expiry: { month: 5, year: 39 } },
      changed: ['sourceOfFunds.provided.card.expiry'],
      updatedAt: '2026-12-01T00:00:00.000Z',
    },
  }]);
  t.strictSame(card.expiry, { month: 1, year: 39 }, 'the card of the earlier event is not mutated');
  t.strictSame(spec(t).given([cardCreated, ...events]).state, {
    status: 'VALID', merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', card: newExpiry, createdAt: CREATED_AT, lastUpdated: LATER,
  }, 'evolve: the new card, lastUpdated moves, createdAt stays');
});

t.test('UpdateTokenDetails with the same details: no event', async (t) => {
  spec(t).given([cardCreated]).when(update()).then([]);
  spec(t).given([cardCreated]).when(update({ sourceOfFunds: { type: 'CARD', card: { ...card, numberSealed: 'sealed:v1:resealed' } } }))
    .then([], 'another sealed value of the same number is no change');
  spec(t).given([cardCreated]).when(update({ verification: { strategy: 'ACQUIRER', gatewayCode: 'APPROVED', currency: 'USD' }, origin: { sessionId: 'S1' } }))
    .then([], 'a new verification or origin alone stores nothing');
  spec(t).given([walletCreated]).when(update({ sourceOfFunds: { type: 'WALLET', wallet }, shipping: { ...shipping } }))
    .then([], 'the same shipping is no change');
});

t.test('UpdateTokenDetails of a new card number (Random generation): the card, the new scheme token, the number named changed', async (t) => {
  // The same 6.4 mask: only accountChanged tells the decider the number is another one.
  const other: StoredCard = { ...card, numberSealed: 'sealed:v1:NEWNUMBER' };
  const verification = { strategy: 'ACQUIRER', gatewayCode: 'APPROVED', currency: 'USD' } as const;
  const events = spec(t).given([cardCreated]).when(update({
    sourceOfFunds: { type: 'CARD', card: other }, accountChanged: true, verification, schemeToken, origin: { sessionId: 'S1' },
  })).then([{
    type: 'TokenUpdated',
    data: {
      merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', card: other,
      verification, schemeToken, origin: { sessionId: 'S1' },
      changed: ['sourceOfFunds.provided.card.number'], updatedAt: LATER,
    },
  }]);
  noClearNumbers(t, events);
  const state = spec(t).given([cardCreated, ...events]).state;
  t.match(state, { status: 'VALID', card: other, verification, schemeToken }, 'evolve keeps the new card, verification and scheme token');
});

t.test('UpdateTokenDetails of a new card number on a Preserve 6.4 token: InvalidRequest on the card number', async (t) => {
  const preserved = created({ type: 'CARD', card }, { tokenGeneration: 'PRESERVE_6_4', token: '5123451234560008' });
  spec(t).given([preserved]).when(update({
    tokenGeneration: 'PRESERVE_6_4', sourceOfFunds: { type: 'CARD', card: { ...card, numberSealed: 'sealed:v1:NEWNUMBER', number: '512345xxxxxx0016' } }, accountChanged: true,
  })).thenThrows(InvalidRequest, (error) => {
    t.equal(error.field, 'sourceOfFunds.provided.card.number');
    t.equal(error.validationType, 'INVALID');
    t.equal(error.message,
      "Value is invalid. Token repository 'repo-1' uses Preserve 6.4 token generation: the account identifier of token '5123451234560008' cannot change; store the new account as a new token");
    t.notMatch(error.message, /sealed|0016/, 'the new number is not in the text');
  });
});

t.test('UpdateTokenDetails on a Preserve 6.4 token: a new expiry of the same card is stored', async (t) => {
  const preserved = created({ type: 'CARD', card }, { tokenGeneration: 'PRESERVE_6_4' });
  const [event] = spec(t).given([preserved]).when(update({ tokenGeneration: 'PRESERVE_6_4', sourceOfFunds: { type: 'CARD', card: newExpiry } })).result();
  t.match(event, { type: 'TokenUpdated', data: { card: newExpiry, changed: ['sourceOfFunds.provided.card.expiry'] } });
});

t.test('UpdateTokenDetails of a new bank account number on a Preserve 6.4 repository: InvalidRequest on the account number', async (t) => {
  spec(t).given([achCreated]).when(update({
    tokenGeneration: 'PRESERVE_6_4', sourceOfFunds: { type: 'ACH', ach: { ...ach, bankAccountNumberSealed: 'sealed:v1:NEW', bankAccountNumber: 'xxxxxxxx1111' } }, accountChanged: true,
  })).thenThrows(InvalidRequest, (error) => t.equal(error.field, 'sourceOfFunds.provided.ach.bankAccountNumber'));
});

t.test('UpdateTokenDetails of a new billing agreement on a Preserve 6.4 repository: InvalidRequest on the agreement id', async (t) => {
  spec(t).given([walletCreated]).when(update({
    tokenGeneration: 'PRESERVE_6_4', sourceOfFunds: { type: 'WALLET', wallet: { ...wallet, billingAgreement: { ...wallet.billingAgreement, id: 'B-NEWAGREEMENT' } } }, accountChanged: true,
  })).thenThrows(InvalidRequest, (error) => {
    t.equal(error.field, 'sourceOfFunds.provided.wallet.billingAgreement.id', 'the field of the account identifier, as the request names it');
    t.notMatch(error.message, /B-NEWAGREEMENT/);
  });
});

t.test('UpdateTokenDetails of bank account details: only the changed members, the sealed number aside', async (t) => {
  const changedAch: StoredAch = { ...ach, bankAccountHolder: 'Jane Q Doe', bankAccountNumberSealed: 'sealed:v1:resealed', secCode: 'PPD' };
  spec(t).given([achCreated]).when(update({ sourceOfFunds: { type: 'ACH', ach: changedAch } })).then([{
    type: 'TokenUpdated',
    data: {
      merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', ach: changedAch,
      changed: ['sourceOfFunds.provided.ach.bankAccountHolder', 'sourceOfFunds.provided.ach.secCode'], updatedAt: LATER,
    },
  }]);
});

t.test('UpdateTokenDetails of a wallet token with new shipping: the shipping is stored and named', async (t) => {
  const newShipping: StoredShipping = { ...shipping, origin: { postcodeZip: '12345' } };
  const events = spec(t).given([walletCreated]).when(update({ sourceOfFunds: { type: 'WALLET', wallet }, shipping: newShipping })).then([{
    type: 'TokenUpdated',
    data: { merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', wallet, shipping: newShipping, changed: ['shipping'], updatedAt: LATER },
  }]);
  t.match(spec(t).given([walletCreated, ...events]).state, { status: 'VALID', shipping: newShipping, account: { type: 'WALLET', wallet } });
});

t.test('UpdateTokenDetails with another kind of source of funds: InvalidRequest on sourceOfFunds.type', async (t) => {
  spec(t).given([cardCreated]).when(update({ sourceOfFunds: { type: 'ACH', ach } })).thenThrows(InvalidRequest, (error) => {
    t.equal(error.field, 'sourceOfFunds.type');
    t.equal(error.message, "Value 'ACH' is invalid. Token '9123456789012348' holds CARD details");
  });
});

t.test('UpdateTokenDetails of an unknown or a deleted token throws TokenNotFound', async (t) => {
  spec(t).given([]).when(update({ sourceOfFunds: { type: 'CARD', card: newExpiry } })).thenThrows(TokenNotFound);
  spec(t).given([cardCreated, deleted]).when(update({ sourceOfFunds: { type: 'CARD', card: newExpiry } })).thenThrows(TokenNotFound);
});

// ---------------------------------------------------------------- ChangeSchemeTokenStatus

const active: SchemeTokenDetails = {
  provider: 'MDES', status: 'ACTIVE', statusTime: '2026-11-21T12:00:05.000Z', tokenIdentifier: 'DMC1234567890',
  gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL', rule: 'expiry 01/39: ACTIVE after provisioning',
};
const change = (next: SchemeTokenDetails = active): ChangeSchemeTokenStatus => ({ type: 'ChangeSchemeTokenStatus', merchantId: MERCHANT, schemeToken: next });
const withScheme = created({ type: 'CARD', card }, { schemeToken, provisioningMode: 'ASYNCHRONOUS' });

t.test('ChangeSchemeTokenStatus: one SchemeTokenStatusChanged with the previous status and the new scheme token', async (t) => {
  const events = spec(t).given([withScheme]).when(change()).then([{
    type: 'SchemeTokenStatusChanged',
    data: { merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', previousStatus: 'PROVISIONING', schemeToken: active },
  }]);
  const state = spec(t).given([withScheme, ...events]).state;
  t.match(state, { status: 'VALID', card, schemeToken: active });
  const suspended = { ...active, status: 'SUSPENDED', statusTime: LATER } as const;
  spec(t).given([withScheme, ...events]).when(change(suspended)).then([{
    type: 'SchemeTokenStatusChanged',
    data: { merchantId: MERCHANT, repositoryId: 'repo-1', token: '9123456789012348', previousStatus: 'ACTIVE', schemeToken: suspended },
  }], 'the next change names ACTIVE as the previous status');
});

t.test('ChangeSchemeTokenStatus of a token without a scheme token, deleted, or unknown: no event (the reactor has nothing to do)', async (t) => {
  spec(t).given([cardCreated]).when(change()).then([]);
  spec(t).given([withScheme, deleted]).when(change()).then([]);
  spec(t).given([]).when(change()).then([]);
});

// ---------------------------------------------------------------- DeleteToken

const del = (now = LATER): DeleteToken => ({ type: 'DeleteToken', merchantId: MERCHANT, now });

t.test('DeleteToken: one TokenDeleted; the state keeps no account details', async (t) => {
  spec(t).given([cardCreated]).when(del()).then([deleted]);
  spec(t).given([achCreated]).when(del()).then([deleted], 'a bank account token too');
  t.strictSame(spec(t).given([cardCreated, deleted]).state, { status: 'DELETED', repositoryId: 'repo-1', token: '9123456789012348', deletedAt: LATER });
});

t.test('DeleteToken of a deleted or an unknown token throws TokenNotFound', async (t) => {
  spec(t).given([cardCreated, deleted]).when(del('2026-12-02T00:00:00.000Z')).thenThrows(TokenNotFound, (error) => t.equal(error.name, 'TokenNotFound'));
  spec(t).given([]).when(del()).thenThrows(TokenNotFound);
});
