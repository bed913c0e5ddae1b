import t from 'tap';
import type { StoredCard, TokenCreated, TokenEvent } from '../../domain/events.js';
import {
  decideToken, evolveToken, initialTokenState, TokenIdTaken, TokenNotFound,
  type CreateCardToken, type RefreshCardToken, type TokenCommand, type TokenState,
} from '../../domain/token.js';
import { deciderSpec } from '../helpers/decider.js';

// decideToken is overloaded per command; the spec needs one signature over every command.
const decide = (state: TokenState, command: TokenCommand): TokenEvent[] =>
  command.type === 'CreateCardToken' ? decideToken(state, command) : decideToken(state, command);

const spec = deciderSpec({ decide, evolve: evolveToken, initialState: initialTokenState });

const card: StoredCard = {
  numberSealed: 'sealed:v1:AAECAwQFBgcICQ',
  number: '512345xxxxxx0008',
  brand: 'MASTERCARD',
  scheme: 'MASTERCARD',
  fundingMethod: 'CREDIT',
  expiry: { month: 1, year: 39 },
};

const create = (overrides: Partial<CreateCardToken> = {}): CreateCardToken => ({
  type: 'CreateCardToken',
  merchantId: 'TESTMERCHANT01',
  repositoryId: 'repo-1',
  tokenGeneration: 'RANDOM',
  token: '9123456789012348',
  card,
  now: '2026-11-21T12:00:00.000Z',
  ...overrides,
});

const created = (command: CreateCardToken): TokenCreated => ({
  type: 'TokenCreated',
  data: {
    merchantId: command.merchantId,
    repositoryId: command.repositoryId,
    token: command.token,
    tokenGeneration: command.tokenGeneration,
    sourceOfFunds: { type: 'CARD', card: command.card },
    verification: { strategy: 'BASIC', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' },
    status: 'VALID',
    createdAt: command.now,
  },
});

t.test('given no events, CreateCardToken gives exactly one TokenCreated with every decision', async (t) => {
  const command = create();
  const events = spec(t).given([]).when(command).then([{
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
  t.equal(events.length, 1);
  const json = JSON.stringify(events);
  t.notMatch(json, /5123450000000008/, 'the clear card number is nowhere in the event');
  t.notMatch(json, /undefined/, 'no undefined member');
});

t.test('the event carries the command as given (Preserve 6.4, another card)', async (t) => {
  const amex: StoredCard = {
    numberSealed: 'sealed:v1:ZZZ',
    number: '345678xxxxx4564',
    brand: 'AMEX',
    scheme: 'AMEX',
    fundingMethod: 'CHARGE',
    expiry: { month: 5, year: 39 },
  };
  const command = create({
    merchantId: 'TESTOTHER', repositoryId: 'repo-2', tokenGeneration: 'PRESERVE_6_4',
    token: '345678123454564', card: amex, now: '2027-01-02T03:04:05.006Z',
  });
  spec(t).given([]).when(command).then([created(command)]);
});

t.test('given a TokenCreated for that id, CreateCardToken throws TokenIdTaken', async (t) => {
  const existing = created(create());
  spec(t).given([existing]).when(create({ card: { ...card, numberSealed: 'sealed:v1:other' } }))
    .thenThrows(TokenIdTaken, (error) => {
      t.equal(error.token, '9123456789012348', 'names the taken id');
      t.equal(error.name, 'TokenIdTaken');
      t.ok(error instanceof Error);
    });
});

t.test('evolve builds a VALID state', async (t) => {
  t.strictSame(initialTokenState(), { status: 'NONE' });
  const command = create();
  const state = spec(t).given([created(command)]).state;
  t.strictSame(state, {
    status: 'VALID',
    merchantId: 'TESTMERCHANT01',
    repositoryId: 'repo-1',
    token: '9123456789012348',
    card,
    createdAt: '2026-11-21T12:00:00.000Z',
    lastUpdated: '2026-11-21T12:00:00.000Z',
  });
});

t.test('evolve does not mutate the previous state', async (t) => {
  const before = initialTokenState();
  const after = evolveToken(before, created(create()));
  t.strictSame(before, { status: 'NONE' });
  t.equal(after.status, 'VALID');
});

const refresh = (overrides: Partial<RefreshCardToken> = {}): RefreshCardToken => ({
  type: 'RefreshCardToken',
  merchantId: 'TESTMERCHANT01',
  expiry: { month: 5, year: 39 },
  now: '2026-12-01T00:00:00.000Z',
  ...overrides,
});

t.test('RefreshCardToken with a new expiry gives one TokenUpdated of the expiry', async (t) => {
  spec(t).given([created(create())]).when(refresh()).then([{
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
  t.strictSame(card.expiry, { month: 1, year: 39 }, 'the stored card of the earlier event is not mutated');
});

t.test('RefreshCardToken with the same expiry changes nothing', async (t) => {
  spec(t).given([created(create())]).when(refresh({ expiry: { month: 1, year: 39 } })).then([]);
});

t.test('RefreshCardToken of a token that does not exist throws TokenNotFound', async (t) => {
  spec(t).given([]).when(refresh()).thenThrows(TokenNotFound);
});

t.test('evolve applies TokenUpdated: new card, lastUpdated moves, createdAt stays', async (t) => {
  const events: TokenEvent[] = [created(create())];
  events.push(...decide(events.reduce(evolveToken, initialTokenState()), refresh()));
  t.equal(events.length, 2);
  const state = spec(t).given(events).state;
  t.strictSame(state, {
    status: 'VALID',
    merchantId: 'TESTMERCHANT01',
    repositoryId: 'repo-1',
    token: '9123456789012348',
    card: { ...card, expiry: { month: 5, year: 39 } },
    createdAt: '2026-11-21T12:00:00.000Z',
    lastUpdated: '2026-12-01T00:00:00.000Z',
  });
});
