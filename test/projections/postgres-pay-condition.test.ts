// On PostgreSQL, two instances sharing one database: a pay decides on its token as the instance's
// memory holds it, without reading the log's head, and its append is checked on the server against
// the token's revision it decided on (store/event-store.ts, promise 8). While the other instance's
// notifications are held back, that memory is behind: a token changed on one instance is still paid
// on the other exactly as it would be on the first, whatever the answer (a new expiry, a refusal, a
// replay), and a transaction reference held by a pay that is then refused is let go.
import t, { type Test } from 'tap';
import { streams } from '../../domain/streams.js';
import { waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { countHeadReads, type Held, holdNotifications, storeOf } from '../helpers/postgres-instances.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { buildTestApp, cardBody, createToken, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';

const server = postgresForFile(t);
type App = Awaited<ReturnType<typeof buildTestApp>>;
type Merchant = typeof M1;
const SUPPLIED = MERCHANTS.merchants[3] as Merchant;

interface PayOptions { merchant?: Merchant; reference?: string }

const pay = (app: App, token: string, order: string, transaction: string, options: PayOptions = {}) => {
  const transactionPart: Record<string, string> = { amount: '10.00', currency: 'USD' };
  if (options.reference !== undefined) transactionPart.reference = options.reference;
  const merchant = options.merchant ?? M1;
  return app.inject({
    method: 'PUT', url: payPath(merchant.id, token, order, transaction), headers: { authorization: payAuth(merchant) },
    payload: { apiOperation: 'PAY', correlationId: 'pay-condition', transaction: transactionPart },
  });
};

const tokenCall = (app: App, method: 'PUT' | 'DELETE', token: string, payload?: object, merchant: Merchant = M1) =>
  app.inject({ method, url: `${tokenPath(merchant.id)}/${token}`, headers: { authorization: tokenAuth(merchant) }, ...(payload ? { payload } : {}) });

/** Pays on `b` (its notifications held) until its memory holds the token's stream (each pay a new order). */
async function warm(t: Test, b: App, held: Held, token: string, prefix: string, merchant: Merchant = M1): Promise<void> {
  const stream = streams.token(merchant.repository.id, token);
  let paid = 0;
  await waitFor(async () => {
    paid += 1;
    const reply = await held.run(() => pay(b, token, `${prefix}${String(paid).padStart(3, '0')}`, '1', { merchant }));
    if (reply.statusCode !== 201) t.fail(`a pay on the other instance: ${reply.body}`);
    return storeOf(b).cachedStream(stream) !== undefined;
  }, 'the other instance holding the token in memory');
}

const expiryOf = (body: string) =>
  (JSON.parse(body) as { sourceOfFunds?: { provided?: { card?: { expiry?: { month?: string } } } } }).sourceOfFunds?.provided?.card?.expiry?.month;

if (server) {
  t.test('PostgreSQL: a pay whose token memory holds reads no head; its answer is as the token is on the server', async (t) => {
    const { a, b } = await twoGateways(t, server, 'cond_expiry');
    const token = await createToken(a, M1, '5123450000000008', '1', '39');
    const held = await holdNotifications(t, b);
    await warm(t, b, held, token, '51000000');
    const counter = countHeadReads(t, /\b(payWithTokenText|payRequest|PayableCards|handleOrderCommand)\b/);
    const quiet = await held.run(() => pay(b, token, '51000009001', '1'));
    t.equal(quiet.statusCode, 201, quiet.body);
    t.equal(counter.reads, 0, 'no head read for a pay on a token memory holds');

    const updated = await tokenCall(a, 'PUT', token, cardBody('5123450000000008', '5', '39'));
    t.equal(updated.statusCode, 201, updated.body);
    const stale = storeOf(b).cachedStream(streams.token(M1.repository.id, token));
    t.equal(stale?.at(-1)?.type, 'TokenCreated', 'the other instance still holds the token as created');
    const onB = await held.run(() => pay(b, token, '51000009002', '1'));
    held.release();
    t.equal(onB.statusCode, 201, onB.body);
    t.equal(expiryOf(onB.body), '5', 'paid with the expiry the token has on the server');
  });

  t.test('PostgreSQL: a refused pay lets its transaction reference go; a repeat after a delete answers as on the deleting instance', async (t) => {
    const { a, b } = await twoGateways(t, server, 'cond_delete');
    const token = await createToken(a, M1);
    const held = await holdNotifications(t, b);
    await warm(t, b, held, token, '52000000');
    const first = await held.run(() => pay(b, token, '52000009001', '1'));
    t.equal(first.statusCode, 201, first.body);

    const deleted = await tokenCall(a, 'DELETE', token);
    t.equal(deleted.statusCode, 200, deleted.body);
    const stale = storeOf(b).cachedStream(streams.token(M1.repository.id, token));
    t.equal(stale?.at(-1)?.type, 'TokenCreated', 'the other instance still holds the token as before the delete');
    const refused = await held.run(() => pay(b, token, '52000009002', '1', { reference: 'ref-cond-1' }));
    const repeatOnB = await held.run(() => pay(b, token, '52000009001', '1'));
    held.release();
    const repeatOnA = await pay(a, token, '52000009001', '1');
    t.equal(refused.statusCode, 400, `refused: ${refused.body}`);
    t.match(refused.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'tokenid' } });
    t.equal(repeatOnB.statusCode, repeatOnA.statusCode, `the repeat answered alike on both: ${repeatOnB.body}`);
    t.same(repeatOnB.json(), repeatOnA.json(), 'with the same body');

    const other = await createToken(a, M1);
    const again = await pay(b, other, '52000009003', '1', { reference: 'ref-cond-1' });
    t.equal(again.statusCode, 201, `the reference of the refused pay is free: ${again.body}`);
  });

  t.test('PostgreSQL: an id refused on one instance, then stored on the other, is paid with at once', async (t) => {
    const { a, b } = await twoGateways(t, server, 'cond_tokenize');
    const known = await tokenCall(a, 'PUT', 'condknown1', cardBody(), SUPPLIED);
    t.equal(known.statusCode, 201, known.body);
    const held = await holdNotifications(t, b);
    await warm(t, b, held, 'condknown1', '53000000', SUPPLIED);

    const unknown = await held.run(() => pay(b, 'condnew1', '53000009001', '1', { merchant: SUPPLIED }));
    t.equal(unknown.statusCode, 400, `an unknown id is refused: ${unknown.body}`);
    const stored = await tokenCall(a, 'PUT', 'condnew1', cardBody(), SUPPLIED);
    t.equal(stored.statusCode, 201, stored.body);
    const paid = await held.run(() => pay(b, 'condnew1', '53000009002', '1', { merchant: SUPPLIED }));
    held.release();
    t.equal(paid.statusCode, 201, `paid on the other instance right after it was stored: ${paid.body}`);
  });
}
