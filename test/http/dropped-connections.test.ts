// Clients that drop their connection (issue 19, defect 1): thousands of raw sockets against a real
// listening server with a small MAX_IN_FLIGHT, each sending a complete pay or create-token request
// (or part of one) and closing at once. Every later request must be served normally: no slot of
// MAX_IN_FLIGHT may stay taken by a request whose client is gone.
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, cardBody, createToken, M1, M2, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';
import { bodyStart, inBatches, rawRequest, sendAndDrop, trackConnections } from '../helpers/raw.js';
import { MERCHANTS_WITH_RULES, RULES, storedCard } from './pay-triggers.fixture.js';

const PAY_BODY = JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } });

t.test('2,000 clients that drop their connection leave every slot free (MAX_IN_FLIGHT 50)', async (t) => {
  // A store that writes to disk (as in production): a request is still being worked on when its
  // client's close arrives, which is what used to leak its slot.
  const dir = t.testdir();
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') }, limits: { maxInFlight: 50 } });
  const tokens = { [M1.id]: await createToken(app, M1), [M2.id]: await createToken(app, M2) };
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const connections = trackConnections(app.server);

  const pay = (m: typeof M1, order: number) => rawRequest('PUT', payPath(m.id, tokens[m.id]!, String(order), '1'), { authorization: payAuth(m) }, PAY_BODY);
  const token = rawRequest('POST', tokenPath(M1.id), { authorization: tokenAuth(M1) }, JSON.stringify(cardBody()));
  const keptAlive = (raw: string) => raw.replace('connection: close', 'connection: keep-alive');
  let order = 20_000_000_000;
  await inBatches(2000, 100, async (i) => {
    const m = i % 2 ? M1 : M2;
    switch (i % 10) {
      case 0: case 1: case 2: case 3: case 4: // a whole valid pay, then gone
        return sendAndDrop(port, pay(m, order++));
      case 5: // a whole pay on a kept-alive connection, then a reset
        return sendAndDrop(port, keptAlive(pay(m, order++)), undefined, true);
      case 6: case 7: // a whole create-token request, then gone
        return sendAndDrop(port, token);
      case 8: { // half a body, then gone
        const raw = pay(m, order++);
        return sendAndDrop(port, raw, bodyStart(raw) + 10);
      }
      default: { // two pipelined pays, then gone
        return sendAndDrop(port, keptAlive(pay(m, order++)) + pay(m, order++));
      }
    }
  });

  // Once the server has seen the connections closed, none may hold a slot. (A connection reset
  // before the server accepted it may never reach it: only the 1,800 others are counted on.)
  t.ok(await eventually(() => connections.accepted() >= 1800 && connections.open() === 0 && app.inFlight() === 0, { timeoutMs: 30_000 }), `every slot comes back once the clients are gone (${connections.accepted()} accepted, ${connections.open()} open, ${app.inFlight()} in flight)`);
  t.equal(app.inFlight(), 0, 'no request is in flight');
  for (const m of [M1, M2]) {
    const res = await fetch(url + payPath(m.id, tokens[m.id]!, '10000000001', '1'), {
      method: 'PUT', headers: { authorization: payAuth(m), 'content-type': 'application/json' }, body: PAY_BODY,
    });
    t.equal(res.status, 201, `a later pay of ${m.id} is served (${await res.text()})`);
  }
  const info = await fetch(`${url}/api/rest/version/100/information`);
  t.equal(info.status, 200, 'Check Gateway answers');
  t.equal((await info.json() as { status: string }).status, 'OPERATING');
  // More requests at once than MAX_IN_FLIGHT ever saw free: the gateway takes them all in turn.
  const many = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(url + payPath(M1.id, tokens[M1.id]!, String(10000000100 + i), '1'), {
    method: 'PUT', headers: { authorization: payAuth(M1), 'content-type': 'application/json' }, body: PAY_BODY,
  }).then((r) => r.status)));
  t.same(many.filter((s) => s === 503), [], 'no later request is refused as busy');
  t.equal(app.inFlight(), 0);
});

t.test('a dropped client keeps its slot while the gateway still works for it (MAX_IN_FLIGHT bounds the work, not the clients)', async (t) => {
  // RULES's rule: order.reference 'slow' adds 2 s of acquirer latency to the payment.
  const dir = t.testdir();
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES, eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') }, limits: { maxInFlight: 3 } });
  const token = await storedCard(app, RULES, 1, 39);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const slow = JSON.stringify({ apiOperation: 'PAY', order: { reference: 'slow' }, transaction: { amount: '1.00', currency: 'USD' } });
  // Three slow payments whose clients give up at once.
  await Promise.all([0, 1, 2].map((i) => sendAndDrop(port, rawRequest('PUT', payPath(RULES.id, token, String(21_000_000_000 + i), '1'), { authorization: payAuth(RULES) }, slow))));
  t.ok(await eventually(() => app.inFlight() === 3), 'their work holds the three slots');
  const refused = await fetch(`http://127.0.0.1:${port}${payPath(RULES.id, token, '21000000010', '1')}`, {
    method: 'PUT', headers: { authorization: payAuth(RULES), 'content-type': 'application/json' }, body: PAY_BODY,
  });
  t.equal(refused.status, 503, 'a fourth request is refused while the dropped ones are still being worked on');
  t.ok(await eventually(() => app.inFlight() === 0, { timeoutMs: 30_000 }), 'their slots come back once their work is done');
  const served = await fetch(`http://127.0.0.1:${port}${payPath(RULES.id, token, '21000000011', '1')}`, {
    method: 'PUT', headers: { authorization: payAuth(RULES), 'content-type': 'application/json' }, body: PAY_BODY,
  });
  t.equal(served.status, 201, 'then requests are served');
  const recorded = (await app.gateway.store.readAll()).filter((e) => e.type === 'PaymentRecorded').length;
  t.equal(recorded, 4, 'the three dropped payments were completed and recorded, and the served one');
});
