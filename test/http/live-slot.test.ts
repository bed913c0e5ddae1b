// The timeline's live stream (GET /admin/api/events/live) takes its reply over from Fastify, so
// neither onSend nor onResponse frees its MAX_IN_FLIGHT slot: the slot is held while the stream
// is open and freed when the client goes (plugins/limits.ts, releaseSlotOnClose).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { basic, buildTestApp, createToken, M1, payAuth, payPath } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';

t.test('a live timeline holds its slot while open and frees it when the client leaves', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests', limits: { maxInFlight: 1 } });
  const token = await createToken(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const open = new Promise<{ response: IncomingMessage; first: string; close: () => void }>((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path: '/admin/api/events/live?after=0', headers: { authorization: basic('admin', 'admin-password-for-tests') } }, (response) => {
      response.setEncoding('utf8');
      response.once('data', (first: string) => resolve({ response, first, close: () => req.destroy() }));
    });
    req.on('error', reject);
    req.end();
  });
  const live = await open;
  t.equal(live.response.statusCode, 200);
  t.match(live.response.headers['content-type'], 'text/event-stream');
  t.match(live.first, ': live from position 0');
  t.equal(app.inFlight(), 1, 'the open stream holds the only slot');
  const pay = () => app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  const refused = await pay();
  t.equal(refused.statusCode, 503, 'a pay meanwhile is refused: MAX_IN_FLIGHT 1');
  t.equal(refused.json().error.cause, 'SERVER_BUSY');
  live.close();
  t.ok(await eventually(() => app.inFlight() === 0), 'the slot is free once the client has gone');
  t.equal((await pay()).statusCode, 201, 'and a pay is served again');
  t.equal(app.inFlight(), 0, 'its own slot freed by its answer');
});
