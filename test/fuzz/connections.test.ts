// Property-based fuzzing of connections that clients drop (issue 19, defect 1): batches of raw
// sockets against a real listening server on 127.0.0.1 with a small MAX_IN_FLIGHT and a store on
// disk (a request is still being worked on when its client's close arrives). Each connection sends
// a generated pay or create-token request (valid, or with junk in its body), whole or cut at any
// byte, alone or pipelined, with or without an Expect header, then closes (FIN or reset) without
// reading. After every batch: no in-flight slot stays taken, and a valid pay is served, not 503.
// Bounded here (npm test); `npm run fuzz` runs it FUZZ_RUNS times.
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { buildTestApp, createToken, M1, M2, MERCHANTS, UNIQUE, payAuth } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';
import { exchange, parseResponse, rawRequest, sendAndDrop, trackConnections } from '../helpers/raw.js';
import { corruption, describe, fuzz, runs, type Sent } from './fuzz.fixture.js';
import { paySent, payUrl, STORED_PAN, validPay, type Payer, type PayWorld } from './pay.fixture.js';
import { tokenSent, validToken, type TokenWorld } from './token.fixture.js';

const MAX_IN_FLIGHT = 4;

interface Connection {
  sent: Sent[];
  /** Where the bytes stop: all of them, the end of the first request's headers, or a fraction of the whole. */
  cut: 'all' | 'headers' | number;
  reset: boolean;
  expect: string | undefined;
}

/** The bytes of a connection's requests (all but the last kept alive), and where they stop. */
function wire(c: Connection): { bytes: Buffer; cut: number } {
  const requests = c.sent.map((s, i) => {
    const headers: Record<string, string> = { ...s.headers, connection: i < c.sent.length - 1 ? 'keep-alive' : 'close' };
    if (c.expect !== undefined) headers.expect = c.expect;
    return rawRequest(s.method, s.url, headers, typeof s.payload === 'string' ? s.payload : String(s.payload ?? ''));
  });
  const bytes = Buffer.from(requests.join(''));
  const cut = c.cut === 'all' ? bytes.length
    : c.cut === 'headers' ? bytes.indexOf('\r\n\r\n') + 4
    : Math.floor(bytes.length * c.cut);
  return { bytes, cut };
}

const show = (c: Connection) => `${c.sent.map(describe).join('\n  + ')}\n  cut ${String(c.cut)}, ${c.reset ? 'reset' : 'FIN'}, expect ${String(c.expect)}`;

t.test('connections dropped at any point leave no in-flight slot behind', async (t) => {
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(t.testdir(), 'gateway.db') }, limits: { maxInFlight: MAX_IN_FLIGHT } });
  const payers: Payer[] = [];
  for (const m of [M1, M2, UNIQUE]) payers.push({ id: m.id, password: m.apiPassword, token: await createToken(app, m, STORED_PAN, '1', '39') });
  const payWorld: PayWorld = { app, payers, recorded: { orderid: '5555555555555555', transactionid: 'x', reference: 'x', body: {} } };
  const tokenWorld: TokenWorld = {
    app, supplied: { id: 'SUPPLIED01', password: MERCHANTS.merchants[3]!.apiPassword, repositoryId: 'REPO03', generation: 'MERCHANT_SUPPLIED', management: 'UNIQUE_TOKEN' },
    storers: [M1, M2, UNIQUE].map((m) => ({ id: m.id, password: m.apiPassword, repositoryId: m.repository.id, generation: m.repository.tokenGeneration, management: m.repository.tokenManagement })),
  };
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const connections = trackConnections(app.server);

  const request: fc.Arbitrary<Sent> = fc.oneof(
    { weight: 3, arbitrary: validPay(payWorld).map(paySent) },
    { weight: 2, arbitrary: validToken(tokenWorld).map(tokenSent) },
    // Junk in the body: corrupted JSON text still reaches the parser, then is refused.
    { weight: 1, arbitrary: fc.tuple(validPay(payWorld).map(paySent), corruption).map(([s, junk]) => ({ ...s, payload: `${String(s.payload ?? '')}${junk}` })) },
  );
  const connection: fc.Arbitrary<Connection> = fc.record({
    sent: fc.array(request, { minLength: 1, maxLength: 3 }),
    cut: fc.oneof({ weight: 3, arbitrary: fc.constant('all' as const) }, { weight: 1, arbitrary: fc.constant('headers' as const) }, { weight: 2, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) }),
    reset: fc.boolean(),
    expect: fc.constantFrom(undefined, undefined, undefined, '100-continue', 'garbage'),
  });

  let order = 30_000_000_000;
  await fuzz(t, 'dropped connections', fc.array(connection, { minLength: 1, maxLength: 3 * MAX_IN_FLIGHT }), async (batch) => {
    // A connection reset before the server accepted it may never reach it: not counted on.
    const expected = connections.accepted() + batch.filter((c) => !c.reset).length;
    await Promise.all(batch.map((c) => {
      const { bytes, cut } = wire(c);
      return sendAndDrop(port, bytes, cut, c.reset);
    }));
    // Once the server has seen every connection of the batch closed, none may hold a slot.
    const settled = () => connections.accepted() >= expected && connections.open() === 0 && app.inFlight() === 0;
    if (!(await eventually(settled))) {
      throw new Error(`${app.inFlight()} in-flight slots still taken, ${connections.open()} connections open, after the batch:\n  ${batch.map(show).join('\n  ')}`);
    }
    const payer = payers[order % 2]!;
    const body = JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } });
    const res = parseResponse(await exchange(port, rawRequest('PUT', payUrl(payer.id, payer.token, String(order++), '1'), { authorization: payAuth({ apiPassword: payer.password }) }, body)));
    if (res.status !== 201) throw new Error(`a valid pay after the batch was answered ${res.status} ${res.body}:\n  ${batch.map(show).join('\n  ')}`);
  }, runs(60));
});
