// An identical repeat answered from the recent answers (services/order/recent-answers.ts): its body
// text is not parsed again (the body parsed at its first repeat is used), and nothing else changes: any other
// text at the same order and transaction is parsed and validated as always, whatever its
// Content-Type, and the repeat's answer is the recorded one.
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, createToken, M1, M2, payAuth, payPath } from '../helpers/app.js';
import { eventsOfType, orderId } from './http.fixture.js';

t.test('the same text is parsed once; other texts at the same ids are parsed and validated', async (t) => {
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(t.testdir(), 'repeat.db') } });
  const token = await createToken(app);
  const other = await createToken(app, M1, '4508750015741019');
  const order = orderId();
  const text = JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' }, correlationId: 'c1' });
  const send = (payload: string, options: { type?: string; token?: string; merchant?: typeof M1 } = {}) => app.inject({
    method: 'PUT', url: payPath((options.merchant ?? M1).id, options.token ?? token, order, 't1'),
    headers: { authorization: payAuth(options.merchant ?? M1), 'content-type': options.type ?? 'application/json' }, payload,
  });

  const first = await send(text);
  t.equal(first.statusCode, 201, first.body);
  t.equal((await send(text)).body, first.body, 'the first repeat: decided again from the order, the same answer');

  // From the second repeat on, the body parsed at the first is used: the text is not parsed again.
  const parse = JSON.parse;
  let parsedText = 0;
  JSON.parse = ((value: string, reviver?: Parameters<typeof parse>[1]) => {
    if (value === text) parsedText++;
    return parse(value, reviver);
  }) as typeof JSON.parse;
  let again;
  try {
    again = await send(text);
  } finally {
    JSON.parse = parse;
  }
  t.equal(again.statusCode, 201);
  t.equal(again.body, first.body, 'the second repeat: the same answer, byte for byte');
  t.equal(parsedText, 0, 'and its text was not parsed again');
  t.equal((await send(text, { type: 'text/plain' })).body, first.body, 'the same text sent as text/plain: the same answer');

  const broken = await send(text.slice(0, -1));
  t.equal(broken.statusCode, 400, 'a broken text at the same ids is parsed, and refused');
  t.equal(broken.json().error.cause, 'INVALID_REQUEST');
  const extra = await send(JSON.stringify({ ...JSON.parse(text) as object, unexpected: 1 }));
  t.equal(extra.statusCode, 400, 'a member the schema does not allow is refused: the body is validated');
  t.equal(extra.json().error.field, 'unexpected');
  const otherToken = await send(text, { token: other });
  t.equal(otherToken.statusCode, 400, 'the same text with another token in the path: another request reusing the ids, refused');
  const otherMerchant = await send(text, { merchant: M2, token: await createToken(app, M2) });
  t.equal(otherMerchant.statusCode, 201, "another merchant's order of the same ids: its own payment");
  t.not(otherMerchant.json().transaction.receipt, first.json().transaction.receipt);

  t.equal((await send(text)).body, first.body, 'after all that, the repeat: the recorded answer');
  const recorded = (await eventsOfType(app, 'PaymentRecorded')).filter((e) => e.stream.endsWith(`:${order}`));
  t.equal(recorded.length, 2, 'one payment per merchant recorded, no more');
});
