// Issue 3, item 1: every source of funds of Create or Update Token through HTTP: CARD (provided,
// or sourceOfFunds.token overlaid by explicit fields), ACH, DIRECT_DEBIT_CANADA, WALLET billing
// agreements. Bank account numbers are masked in responses and sealed in events.
import t from 'tap';
import { M1, M2, UNIQUE } from '../helpers/app.js';
import { expectInvalid, pay, payBody, orderId } from './http.fixture.js';
import { sleep } from '../helpers/poll.js';
import { ACCOUNT, PRESERVE_UNIQUE, ach, app, card, count, create, directDebitCanada, retrieve, storeText, typesOf, wallet } from './token-api.fixture.js';

t.test('ACH: all members stored, the account number masked in the response and sealed in the event', async (t) => {
  const a = await app(t);
  const res = await create(a, M1, { sourceOfFunds: { type: 'ACH', provided: { ach: ach() } } });
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  t.equal(body.sourceOfFunds.type, 'ACH');
  t.same(body.sourceOfFunds.provided, {
    ach: { accountType: 'CONSUMER_CHECKING', bankAccountHolder: 'Jane Q Public', bankAccountNumber: 'xxxxxxxx6789', routingNumber: '021000021', secCode: 'WEB' },
  });
  t.equal(body.response.gatewayCode, 'NO_VERIFICATION_PERFORMED', 'bank accounts are not verified');
  t.equal(body.verificationStrategy, 'NONE');
  t.match(body.token, /^9\d{15}$/);
  t.notMatch(res.body, '000123456789', 'the account number is not in the response');
  const events = await storeText(a);
  t.notMatch(events, '000123456789', 'nor in any event');
  const created = (await a.gateway.store.readAll()).find((e) => e.type === 'TokenCreated');
  const sealed = (created?.data as { sourceOfFunds: { ach: { bankAccountNumberSealed: string } } }).sourceOfFunds.ach.bankAccountNumberSealed;
  t.equal(a.gateway.sealer.open(sealed), '000123456789', 'sealed in the event');
  const got = await retrieve(a, M1, body.token);
  t.equal(got.json().sourceOfFunds.provided.ach.bankAccountNumber, 'xxxxxxxx6789', 'retrieval masks it too');
  const paid = await pay(a, body.token, payBody());
  t.equal(paid.statusCode, 400, 'an ACH token cannot pay with token (cards only)');
  t.equal(paid.json().error.validationType, 'UNSUPPORTED');
});

t.test('ACH: every member is required together', async (t) => {
  const a = await app(t);
  for (const member of ['accountType', 'bankAccountHolder', 'bankAccountNumber', 'routingNumber', 'secCode']) {
    const partial: Record<string, unknown> = ach();
    delete partial[member];
    expectInvalid(t, await create(a, M1, { sourceOfFunds: { type: 'ACH', provided: { ach: partial } } }),
      { field: `sourceOfFunds.provided.ach.${member}`, validationType: 'MISSING' }, `no ${member}`);
  }
  t.equal(await a.gateway.store.headPosition(), 0n, 'nothing stored');
});

t.test('DIRECT_DEBIT_CANADA: stored with the account number masked and sealed; required members', async (t) => {
  const a = await app(t);
  const res = await create(a, M1, { sourceOfFunds: { type: 'DIRECT_DEBIT_CANADA', provided: { directDebitCanada: directDebitCanada() } } });
  t.equal(res.statusCode, 201, res.body);
  t.same(res.json().sourceOfFunds.provided.directDebitCanada, {
    accountType: 'CONSUMER_SAVINGS', bankAccountHolder: 'Jean Tremblay', bankAccountNumber: 'xxxxxx1098', financialInstitutionNumber: '001', transitNumber: '12345',
  });
  t.notMatch(await storeText(a), '7654321098', 'no event holds the account number');
  const partial: Record<string, unknown> = directDebitCanada();
  delete partial.transitNumber;
  expectInvalid(t, await create(a, M1, { sourceOfFunds: { type: 'DIRECT_DEBIT_CANADA', provided: { directDebitCanada: partial } } }),
    { field: 'sourceOfFunds.provided.directDebitCanada.transitNumber', validationType: 'MISSING' });
});

t.test('WALLET: billing agreements of both cardinalities are stored and echoed; shipping kept only for them', async (t) => {
  const a = await app(t);
  const shipping = { address: { street: '1 Main St', street2: 'Apt 4', city: 'Springfield', country: 'USA' }, contact: { firstName: 'Jane', lastName: 'Payer' } };
  for (const cardinality of ['SINGLE', 'MULTIPLE']) {
    const res = await create(a, M1, { sourceOfFunds: { type: 'WALLET', provided: { wallet: wallet(`B-${cardinality}`, cardinality) } }, shipping });
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    t.same(body.sourceOfFunds.provided.wallet.billingAgreement, { cardinality, description: 'Monthly box', id: `B-${cardinality}`, name: 'Box subscription' }, cardinality);
    t.equal(body.sourceOfFunds.provided.wallet.payerId, 'PAYER0000001');
    t.same(body.shipping, { address: { street: '1 Main St Apt 4', city: 'Springfield', country: 'USA' }, contact: { firstName: 'Jane', lastName: 'Payer' } }, 'shipping echoed, street2 merged');
    t.same((await retrieve(a, M1, body.token)).json().shipping, body.shipping, 'and stored against the token');
  }
  expectInvalid(t, await create(a, M1, { sourceOfFunds: { type: 'WALLET', provided: { wallet: { payerId: 'P1' } } } }),
    { field: 'sourceOfFunds.provided.wallet.billingAgreement', validationType: 'MISSING' }, 'spec rule 6: only billing agreements');
  const cardToken = await create(a, M1, { sourceOfFunds: { type: 'CARD', provided: { card: card() } }, shipping });
  t.equal(cardToken.statusCode, 201);
  t.notOk('shipping' in cardToken.json(), 'spec rule 7: shipping ignored for a card token');
  const cardEvent = (await a.gateway.store.readAll()).filter((e) => e.type === 'TokenCreated').at(-1);
  t.notOk('shipping' in (cardEvent?.data as object), 'the card token event has no shipping');
});

t.test('sourceOfFunds.token: the named token is updated, explicit fields over the token; type may be left unset', async (t) => {
  const a = await app(t);
  const first = (await create(a, M1, { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39') } } })).json();
  const renewed = await create(a, M1, { sourceOfFunds: { token: first.token, provided: { card: { expiry: { month: '5', year: '39' } } } } });
  t.equal(renewed.statusCode, 201, renewed.body);
  t.equal(renewed.json().token, first.token, 'the same token');
  t.equal(renewed.json().sourceOfFunds.provided.card.expiry, '0539', 'explicit expiry over the token');
  t.equal(renewed.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'number from the token');
  t.equal(count(await typesOf(a), 'TokenUpdated'), 1);
  const same = await create(a, M1, { sourceOfFunds: { type: 'CARD', token: first.token } });
  t.equal(same.json().sourceOfFunds.provided.card.expiry, '0539', 'token alone: nothing changes');
  t.equal(count(await typesOf(a), 'TokenUpdated'), 1, 'no event when nothing changed');
  const paid = await pay(a, first.token, payBody(), { order: orderId() });
  t.equal(paid.json().response.gatewayCode, 'DECLINED', 'the payment uses the updated expiry (05/39 declines)');

  const newNumber = await create(a, M1, { sourceOfFunds: { type: 'CARD', token: first.token, provided: { card: { number: '4508750015741019' } } } });
  t.equal(newNumber.json().token, first.token, 'a RANDOM token may change its card number');
  t.equal(newNumber.json().sourceOfFunds.provided.card.number, '450875xxxxxx1019');
  t.equal(newNumber.json().sourceOfFunds.provided.card.brand, 'VISA');

  expectInvalid(t, await create(a, M1, { sourceOfFunds: { type: 'CARD', token: '9000000000000000' } }), { field: 'sourceOfFunds.token' }, 'unknown token');
  const other = (await create(a, M2, { sourceOfFunds: { type: 'CARD', provided: { card: card('4012000033330026') } } })).json().token as string;
  expectInvalid(t, await create(a, M1, { sourceOfFunds: { type: 'CARD', token: other } }), { field: 'sourceOfFunds.token' }, "another repository's token");
  const achToken = (await create(a, M1, { sourceOfFunds: { type: 'ACH', provided: { ach: ach() } } })).json().token as string;
  expectInvalid(t, await create(a, M1, { sourceOfFunds: { type: 'CARD', token: achToken } }), { field: 'sourceOfFunds.type' }, 'a CARD request naming an ACH token');
  expectInvalid(t, await create(a, M1, { sourceOfFunds: {} }), { field: 'sourceOfFunds.type', validationType: 'MISSING' }, 'neither type nor token');
});

t.test('session and token combined: explicit over session over token', async (t) => {
  const a = await app(t);
  const token = (await create(a, M1, { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39') } } })).json().token as string;
  const auth = { authorization: `Basic ${Buffer.from(`merchant.${M1.id}:${M1.apiPassword}`).toString('base64')}` };
  const session = (await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/session`, headers: auth, payload: {} })).json().session as { id: string };
  await a.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/session/${session.id}`, headers: auth, payload: { sourceOfFunds: { provided: { card: { expiry: { month: '5', year: '39' }, nameOnCard: 'From Session' } } } } });
  const res = await create(a, M1, { session: { id: session.id }, sourceOfFunds: { type: 'CARD', token, provided: { card: { nameOnCard: 'Explicit Name' } } } });
  t.equal(res.statusCode, 201, res.body);
  const shown = res.json().sourceOfFunds.provided.card;
  t.equal(shown.expiry, '0539', 'session expiry over the token');
  t.equal(shown.nameOnCard, 'Explicit Name', 'explicit name over the session');
  t.equal(shown.number, '512345xxxxxx0008', 'number from the token');
});

t.test('Preserve 6.4: a new account identifier for an existing token is refused; the token stays as it was', async (t) => {
  const a = await app(t);
  for (const m of [M2, PRESERVE_UNIQUE]) {
    const token = (await create(a, m, { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008') } } })).json().token as string;
    expectInvalid(t, await create(a, m, { sourceOfFunds: { type: 'CARD', token, provided: { card: { number: '5111111111111118' } } } }),
      { field: 'sourceOfFunds.provided.card.number', explanation: /Preserve 6\.4/ }, `${m.id}: new number refused`);
    const renewed = await create(a, m, { sourceOfFunds: { type: 'CARD', token, provided: { card: { expiry: { month: '2', year: '39' } } } } });
    t.equal(renewed.statusCode, 201, `${m.id}: other details may change`);
    t.equal(renewed.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
    t.equal((await retrieve(a, m, token)).json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', `${m.id}: still the old card`);
  }
  const achToken = (await create(a, M2, { sourceOfFunds: { type: 'ACH', provided: { ach: ach() } } })).json().token as string;
  expectInvalid(t, await create(a, M2, { sourceOfFunds: { token: achToken, provided: { ach: ach({ bankAccountNumber: '999999999' }) } } }),
    { field: 'sourceOfFunds.provided.ach.bankAccountNumber' }, 'a new ACH account number is refused too');
});

t.test('unique-card repository: a token moved to another card frees the old one; a card of another token is refused', async (t) => {
  const a = await app(t);
  const store = (number: string) => create(a, UNIQUE, { sourceOfFunds: { type: 'CARD', provided: { card: card(number) } } });
  const first = (await store('5123450000000008')).json().token as string;
  const second = (await store('4012000033330026')).json().token as string;
  expectInvalid(t, await create(a, UNIQUE, { sourceOfFunds: { type: 'CARD', token: first, provided: { card: { number: '4012000033330026' } } } }),
    { field: 'sourceOfFunds.provided.card.number', explanation: new RegExp(second) }, 'the card belongs to another token');
  const moved = await create(a, UNIQUE, { sourceOfFunds: { type: 'CARD', token: first, provided: { card: { number: '5111111111111118' } } } });
  t.equal(moved.statusCode, 201, moved.body);
  t.equal((await store('5111111111111118')).json().token, first, 'the new card now returns the moved token');
  const again = (await store('5123450000000008')).json().token as string;
  t.not(again, first, 'the old card is no longer that token: it gets a new one');
});

t.test('unique-card repository: a token moved to a card whose new token is being written is refused, naming it (never two tokens for one card)', async (t) => {
  const a = await app(t);
  const store = (number: string, token?: string) => create(a, UNIQUE, { sourceOfFunds: { type: 'CARD', ...(token ? { token } : {}), provided: { card: card(number) } } });
  const other = (await store('4012000033330026')).json().token as string;
  // Hold the next token's TokenCreated: its request has claimed the card and not yet written it.
  const eventStore = a.gateway.store;
  const append = eventStore.append.bind(eventStore);
  let reached!: () => void;
  const atGate = new Promise<void>((resolve) => { reached = resolve; });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => { open = resolve; });
  eventStore.append = async (stream, events, options) => {
    if (events.some((e) => e.type === 'TokenCreated')) { reached(); await gate; }
    return append(stream, events, options);
  };
  t.teardown(() => { eventStore.append = append; });
  const creating = store('5123450000000008');
  await atGate;
  const moving = store('5123450000000008', other);
  await sleep(50); // time for the move to meet the claim of a token not yet written (it has no event to await)
  open();
  const [created, moved] = await Promise.all([creating, moving]);
  t.equal(created.statusCode, 201, created.body);
  const token = created.json().token as string;
  expectInvalid(t, moved, { field: 'sourceOfFunds.provided.card.number', explanation: new RegExp(token) }, 'the card belongs to the token being written');
  t.equal((await retrieve(a, UNIQUE, other)).json().sourceOfFunds.provided.card.number, '401200xxxxxx0026', 'the moved token keeps its card');
  t.equal((await store('5123450000000008')).json().token, token, 'the card returns the one token');
});

t.test('unique-account repository: the same bank account returns its token, a changed holder updates it', async (t) => {
  const a = await app(t);
  const first = (await create(a, ACCOUNT, { sourceOfFunds: { type: 'ACH', provided: { ach: ach() } } })).json();
  const same = (await create(a, ACCOUNT, { sourceOfFunds: { type: 'ACH', provided: { ach: ach({ bankAccountNumber: '0001-2345-6789' }) } } })).json();
  t.equal(same.token, first.token, 'separators do not make another account');
  const renamed = (await create(a, ACCOUNT, { sourceOfFunds: { type: 'ACH', provided: { ach: ach({ bankAccountHolder: 'Jane Public' }) } } })).json();
  t.equal(renamed.token, first.token);
  t.equal(renamed.sourceOfFunds.provided.ach.bankAccountHolder, 'Jane Public');
  const types = await typesOf(a);
  t.equal(count(types, 'TokenCreated'), 1);
  t.same((await a.gateway.store.readAll()).filter((e) => e.type === 'TokenUpdated').map((e) => (e.data as { changed: string[] }).changed), [['sourceOfFunds.provided.ach.bankAccountHolder']], 'one update, of the holder');
  const ddc = (await create(a, ACCOUNT, { sourceOfFunds: { type: 'DIRECT_DEBIT_CANADA', provided: { directDebitCanada: directDebitCanada() } } })).json().token;
  t.equal((await create(a, ACCOUNT, { sourceOfFunds: { type: 'DIRECT_DEBIT_CANADA', provided: { directDebitCanada: directDebitCanada() } } })).json().token, ddc);
});
