// Property-based fuzzing of Tokenize (PUT .../token/{tokenid}) in a MERCHANT_SUPPLIED repository,
// with the generators of Create or Update Token (its body is the same): every answer is never a
// 5xx, an error is the gateway's body, a refusal appends no event, no card number or security code
// is echoed (fuzz.fixture.ts sendChecked). A valid request stores the token under the path's id,
// and its identical repeat answers the same body and appends nothing. Bounded here (npm test);
// `npm run fuzz` runs them FUZZ_RUNS times.
import fc from 'fast-check';
import t from 'tap';
import { anyOf, describe, expectRefusal, fuzz, overlaps, runs, sendChecked, type Sent } from './fuzz.fixture.js';
import { applied, bodyMutation, tokenSecrets, tokenSent, tokenUrl, tokenWorld, urlMutation, validToken, type TokenMutation, type TokenRequest, type TokenWorld } from './token.fixture.js';

/** The world of the token fuzzers with the merchant-supplied repository (UNIQUE_TOKEN) as the only storer. */
async function suppliedWorld(t: Parameters<typeof tokenWorld>[0]): Promise<TokenWorld> {
  const world = await tokenWorld(t);
  return { ...world, storers: [world.supplied] };
}

let next = 0;
/** A fresh merchant-supplied id: never a token yet, so a request creates (the body alone decides). */
const freshId = () => `fuzz${++next}x`;
const putSent = (r: TokenRequest, id: string): Sent => ({ ...tokenSent(r), method: 'PUT', url: `${tokenUrl(r.merchantId)}/${id}` });

t.test('valid Tokenize requests: 201 storing the token under the path\'s id; the identical repeat answers the same and appends nothing', async (t) => {
  const world = await suppliedWorld(t);
  let stored = 0;
  await fuzz(t, 'tokenize valid', validToken(world), async (r) => {
    const id = freshId();
    const sent = putSent(r, id);
    const out = await sendChecked(world.app, sent, tokenSecrets(r));
    const fail = (problem: string): never => { throw new Error(`${problem}\n${describe(sent)}\n=> ${out.res.statusCode} ${out.res.body.slice(0, 2000)}`); };
    if (out.res.statusCode !== 201) fail('a valid request was not answered 201');
    const body = JSON.parse(out.res.body) as { result: string; token?: string; repositoryId: string };
    if (body.repositoryId !== world.supplied.repositoryId) fail('repositoryId');
    if (body.result === 'SUCCESS' && body.token !== id) fail(`token ${String(body.token)} is not the id of the path`);
    if (body.result === 'SUCCESS' && out.appended < 1n) fail('a stored token appended nothing');
    if (body.result === 'SUCCESS') stored += 1;
    if (body.result !== 'SUCCESS' && out.appended !== 0n) fail('a failed verification appended events');
    const again = await sendChecked(world.app, sent, tokenSecrets(r));
    if (body.result === 'SUCCESS' && again.res.body !== out.res.body) fail(`the repeat answered otherwise: ${again.res.body.slice(0, 2000)}`);
    if (again.appended !== 0n && body.result === 'SUCCESS') fail('the repeat appended events');
  }, runs(120));
  t.ok(stored > 0, `${stored} tokens stored`);
});

t.test('one or several wrong things in the body or the merchant id: the refusal POST gives, naming the field', async (t) => {
  const world = await suppliedWorld(t);
  const arb = validToken(world, { withUnvalidated: true }).chain((r) =>
    fc.array(fc.oneof(bodyMutation(), urlMutation(world)), { minLength: 1, maxLength: 3 }).map((all) => {
      const ms: TokenMutation[] = [];
      for (const m of all) if (!ms.some((k) => overlaps(k.at, m.at))) ms.push(m);
      return { r, ms };
    }));
  await fuzz(t, 'tokenize mutations', arb, async ({ r, ms }) => {
    const q = applied(r, ms);
    const sent = putSent(q, freshId());
    const out = await sendChecked(world.app, sent, tokenSecrets(q));
    expectRefusal(out, anyOf(ms.map((m) => m.expect)), sent, ms.map((m) => m.what).join(' + '));
  }, runs(250));
});
