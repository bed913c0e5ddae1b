// Issue 19, defect 1, end to end: the real process (server.js of the test build) with MAX_IN_FLIGHT 50, and
// clients as a CI load test has them: many that send a pay and drop the connection at once, many
// that give up after a few milliseconds (fetch aborted mid-request) and reconnect. Afterwards every
// merchant is served and Check Gateway answers OPERATING: no slot was left behind.
import { join } from 'node:path';
import t from 'tap';
import { MERCHANTS, M1, M2, cardBody, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { inBatches, rawRequest, sendAndDrop } from '../helpers/raw.js';

const PAY = { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } };

t.test('clients that drop or time out, by the thousand, leave the real gateway answering everyone', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const server = await startServer({ EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), MAX_IN_FLIGHT: '50' });
  t.teardown(() => server.stop('SIGKILL'));
  const port = Number(new URL(server.url).port);
  const token = async (m: typeof M1) => (await call(server.url, 'POST', tokenPath(m.id), tokenAuth(m), cardBody())).json().token as string;
  const tokens = { [M1.id]: await token(M1), [M2.id]: await token(M2) };

  let order = 30_000_000_000;
  // 1,500 connections that send a whole pay and close at once.
  await inBatches(1500, 100, async (i) => {
    const m = i % 2 ? M1 : M2;
    return sendAndDrop(port, rawRequest('PUT', payPath(m.id, tokens[m.id]!, String(order++), '1'), { authorization: payAuth(m) }, JSON.stringify(PAY)), undefined, i % 3 === 0);
  });
  // 500 clients that time out after 1-5 ms and try again once, as a client library with a short time-out does.
  let answered = 0;
  await inBatches(500, 50, async (i) => {
    const m = i % 2 ? M1 : M2;
    const path = payPath(m.id, tokens[m.id]!, String(order++), '1');
    const init = { method: 'PUT', headers: { authorization: payAuth(m), 'content-type': 'application/json' }, body: JSON.stringify(PAY) };
    for (const timeoutMs of [1 + (i % 5), 10_000]) {
      try {
        const res = await fetch(server.url + path, { ...init, signal: AbortSignal.timeout(timeoutMs) });
        await res.text();
        if (res.status === 201) answered++;
        return;
      } catch {
        // timed out: try again (the payment is idempotent)
      }
    }
  });
  t.ok(answered > 0, `retried pays answered (${answered} of 500)`);

  // Every later request of every merchant is served, not refused for want of a slot.
  const info = await call(server.url, 'GET', '/api/rest/version/100/information', '');
  t.same(info.json(), { gatewayVersion: info.json().gatewayVersion, status: 'OPERATING' }, 'Check Gateway: OPERATING');
  const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => {
    const m = i % 2 ? M1 : M2;
    return call(server.url, 'PUT', payPath(m.id, tokens[m.id]!, String(order++), '1'), payAuth(m), PAY);
  }));
  const statuses = burst.map((r) => r.status);
  t.ok(statuses.every((s) => s === 201 || s === 503), 'a burst beyond MAX_IN_FLIGHT gets 201 or 503, nothing else');
  t.ok(statuses.filter((s) => s === 201).length >= 50, `at least MAX_IN_FLIGHT of 60 concurrent pays served (${statuses.filter((s) => s === 201).length})`);
  for (const m of [M1, M2]) {
    const res = await call(server.url, 'PUT', payPath(m.id, tokens[m.id]!, String(order++), '1'), payAuth(m), PAY);
    t.equal(res.status, 201, `${m.id} pays`);
  }
  t.notMatch(server.logs(), /"level":(50|60)/, 'no error logged');
  t.equal(await server.stop(), 0, 'and stops cleanly');
});
