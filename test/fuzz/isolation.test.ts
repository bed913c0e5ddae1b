// Property-based isolation of merchants whose ids extend one another (issue 19, item 2): for a
// generated merchant id A and B = A + separator + suffix (and the other way round), A crafts every
// id it can from B's session, token and order (B's id with the suffix moved around) and reaches
// none of B's data, changes none of it, and records nothing. Bounded in `npm test`; `npm run fuzz`
// runs it FUZZ_RUNS times.
import fc from 'fast-check';
import t from 'tap';
import { basic, buildTestApp, payAuth, payPath } from '../helpers/app.js';
import { fuzz, runs } from './fuzz.fixture.js';

const repo = (id: string) => ({ id, tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' });
const idChars = fc.constantFrom(...'ABCXYZ019-_');
const idPart = (min: number, max: number) => fc.array(idChars, { minLength: min, maxLength: max }).map((cs) => cs.join(''));

const pairs = fc.record({
  base: idPart(1, 12),
  separator: fc.constantFrom('-', '_', '--', ''),
  suffix: idPart(1, 8),
  longerIsVictim: fc.boolean(),
}).filter(({ base, separator, suffix }) => `${base}${separator}${suffix}`.length <= 40);

t.test('merchant ids that extend one another: the attacker crafts ids from the victim\'s and reaches nothing', async (t) => {
  await fuzz(t, 'prefix isolation', pairs, async ({ base, separator, suffix, longerIsVictim }) => {
    const short = { id: base, apiPassword: 'fuzz-password-short-0123456789-0123456', repository: repo('RS') };
    const long = { id: `${base}${separator}${suffix}`, apiPassword: 'fuzz-password-long-0123456789-01234567', repository: repo('RL') };
    const [attacker, victim] = longerIsVictim ? [short, long] : [long, short];
    const app = await buildTestApp(t, { merchants: { merchants: [short, long] } });
    try {
      const auth = (m: typeof short) => ({ authorization: basic(`merchant.${m.id}`, m.apiPassword) });
      const v100 = (m: typeof short, rest: string) => `/api/rest/version/100/merchant/${m.id}${rest}`;
      const session = JSON.parse((await app.inject({ method: 'POST', url: v100(victim, '/session'), headers: auth(victim), payload: {} })).body).session.id as string;
      const card = { number: '4508750015741019', expiry: { month: '1', year: '39' } };
      await app.inject({ method: 'PUT', url: v100(victim, `/session/${session}`), headers: auth(victim), payload: { sourceOfFunds: { type: 'CARD', provided: { card } } } });
      const token = JSON.parse((await app.inject({ method: 'POST', url: v100(victim, '/token'), headers: auth(victim), payload: { sourceOfFunds: { type: 'CARD', provided: { card } } } })).body).token as string;
      const paid = await app.inject({ method: 'PUT', url: payPath(victim.id, token, '10000000001', '1'), headers: { authorization: payAuth(victim) }, payload: { apiOperation: 'PAY', transaction: { amount: '9.00', currency: 'USD' } } });
      if (paid.statusCode !== 201) throw new Error(`the victim's payment: ${paid.statusCode} ${paid.body}`);
      const head = await app.gateway.store.headPosition();

      // Every way the difference between the ids can be moved into an identifier.
      const extra = longerIsVictim ? long.id.slice(short.id.length) : '';
      const trimmed = (text: string) => (text.startsWith('-') || text.startsWith('_') ? text.slice(1) : text);
      const sessionIds = [...new Set([`${extra}-${session}`, `${trimmed(extra)}-${session}`, `${extra}${session}`, `${trimmed(extra)}:${session}`, session])]
        .filter((id) => id.length >= 31 && id.length <= 35);
      const answers = [];
      for (const id of sessionIds) {
        answers.push(await app.inject({ method: 'POST', url: v100(attacker, '/token'), headers: auth(attacker), payload: { session: { id }, sourceOfFunds: { type: 'CARD' } } }));
        answers.push(await app.inject({ method: 'PUT', url: v100(attacker, `/session/${encodeURIComponent(id)}`), headers: auth(attacker), payload: { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008' } } } } }));
      }
      answers.push(await app.inject({ method: 'GET', url: v100(attacker, `/token/${token}`), headers: auth(attacker) }));
      answers.push(await app.inject({ method: 'PUT', url: payPath(attacker.id, token, '10000000002', '1'), headers: { authorization: payAuth(attacker) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } }));
      answers.push(await app.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${attacker.id}/order/10000000001`, headers: { authorization: payAuth(attacker) } }));
      for (const res of answers) {
        if (res.statusCode < 400 || res.statusCode >= 500) throw new Error(`an attempt was answered ${res.statusCode}: ${res.body}`);
        if (res.body.includes('450875') || res.body.includes('xxxxxx1019')) throw new Error(`an answer shows the victim's card: ${res.body}`);
      }
      if ((await app.gateway.store.headPosition()) !== head) throw new Error('an attempt recorded something');
      const own = await app.inject({ method: 'POST', url: v100(victim, '/token'), headers: auth(victim), payload: { session: { id: session }, sourceOfFunds: { type: 'CARD' } } });
      if (own.statusCode !== 201 || !own.body.includes('450875xxxxxx1019')) throw new Error(`the victim's session changed: ${own.statusCode} ${own.body}`);
    } finally {
      await app.close();
    }
  }, runs(25));
});
