// The ceiling of the benchmark: a bare Fastify server on the same two routes as tokengate,
// answering 201 with a canned body (a real tokengate response of the same operation, so the
// same size). No auth, no validation, no store: what Node and Fastify cost on this machine.
// Env: CEILING_PAY_BODY, CEILING_TOKEN_BODY (files holding the bodies). Prints its port.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const payBody = readFileSync(process.env.CEILING_PAY_BODY ?? '', 'utf8');
const tokenBody = readFileSync(process.env.CEILING_TOKEN_BODY ?? '', 'utf8');

const app = Fastify({ logger: false });
app.put('/api/rest/version/3/merchant/:merchantid/token/:tokenid/order/:orderid/transaction/:transactionid', async (_request, reply) =>
  reply.code(201).type('application/json; charset=utf-8').send(payBody));
app.post('/api/rest/version/100/merchant/:merchantId/token', async (_request, reply) =>
  reply.code(201).type('application/json; charset=utf-8').send(tokenBody));

const close = () => { app.close().then(() => process.exit(0), () => process.exit(1)); };
process.once('SIGTERM', close);
process.once('SIGINT', close);

await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`ceiling listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
