// Micro-benchmark of the reply serializers (issue 7): sortedJson as it was, sortedJson now, and
// the serializers compiled from the response schemas (plugins/openapi.ts), on a real pay response
// and a real Create or Update Token response (made by the compiled core, dist/, on a memory
// store: an HTTP request, then the identical request to the service for the object itself).
// Rounds interleave the variants (A, B, C, A, B, C, ...) so that load from other processes
// falls on all of them; each prints its median and spread over the rounds, in ns per call.
// Usage: npm run build && node bench/serialize.mjs [rounds] [calls per round]
//        TOKENGATE_DIST=<a compiled tree> node bench/serialize.mjs   (another build of the core)
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const dist = pathToFileURL(`${resolve(process.env.TOKENGATE_DIST ?? new URL('../dist', import.meta.url).pathname)}/`);
const load = (path) => import(new URL(path, dist).href);
const [{ buildApp }, { parseMerchants }, { sortedJson }, { responseSerializer }, schemas, { payWithToken }, { createToken }] = await Promise.all([
  load('app.js'), load('merchants.js'), load('lib/json.js'), load('plugins/openapi.js'), load('schemas/responses.js'),
  load('services/payments.js'), load('services/tokens.js'),
]);

/** sortedJson before issue 7. */
function sortedJsonBefore(value) {
  switch (typeof value) {
    case 'string': return JSON.stringify(value);
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'bigint': return value.toString();
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : sortedJsonBefore(v))).join(',')}]`;
      if (typeof value.toJSON === 'function') return sortedJsonBefore(value.toJSON());
      const parts = [];
      for (const key of Object.keys(value).sort()) {
        const member = value[key];
        if (member === undefined || typeof member === 'function') continue;
        parts.push(`${JSON.stringify(key)}:${sortedJsonBefore(member)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default: return 'null';
  }
}

const merchant = { id: 'BENCH01', apiPassword: 'bench-password-0123456789abcdef01', repository: { id: 'REPOB1', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' } };
const app = await buildApp({ eventStore: { kind: 'memory' }, merchants: parseMerchants({ merchants: [merchant] }, 'bench') });
await app.ready();
const profile = app.gateway.merchants.get(merchant.id);
const meta = { requestId: 'bench', correlationId: 'bench', merchantId: merchant.id };
const basic = (user) => `Basic ${Buffer.from(`${user}:${merchant.apiPassword}`).toString('base64')}`;

const tokenBody = { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } };
const created = await app.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${merchant.id}/token`, headers: { authorization: basic(`merchant.${merchant.id}`) }, payload: tokenBody });
const token = created.json().token;
const tokenObject = await createToken(app.gateway, profile, tokenBody, meta, 'basic');
const payBody = { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' }, card: { securityCode: '100' }, billing: { address: { street: '1 Alpha St' } } };
const params = { merchantid: merchant.id, tokenid: token, orderid: '10000000001', transactionid: '1' };
const paid = await app.inject({ method: 'PUT', url: `/api/rest/version/3/merchant/${merchant.id}/token/${token}/order/10000000001/transaction/1`, headers: { authorization: basic('') }, payload: payBody });
const payObject = await payWithToken(app.gateway, profile, params, payBody, meta);
await app.close();

const resolveRef = (id) => (id === 'ErrorBody' ? schemas.ErrorBody : undefined);
const compiledPay = responseSerializer(schemas.documented(schemas.PayResponse), resolveRef);
const compiledToken = responseSerializer(schemas.documented(schemas.TokenResponse), resolveRef);
if (!compiledPay.compiled || !compiledToken.compiled) throw new Error('the response schemas did not compile');

const cases = [['pay', payObject, paid.body], ['token', tokenObject, undefined]];
const variants = [['sortedJson before', sortedJsonBefore], ['sortedJson now', sortedJson]];
for (const [name, object, body] of cases) {
  const expected = sortedJsonBefore(object);
  const compiled = name === 'pay' ? compiledPay.serialize : compiledToken.serialize;
  for (const [variant, serialize] of [...variants, ['compiled', compiled]]) {
    if (serialize(object) !== expected) throw new Error(`${name}, ${variant}: not the same text`);
  }
  if (body !== undefined && body !== expected) throw new Error(`${name}: the HTTP body differs`);
}

const rounds = Number(process.argv[2] ?? 15);
const calls = Number(process.argv[3] ?? 20000);
let sink = 0;
function time(serialize, object) {
  const started = process.hrtime.bigint();
  // Buffer.byteLength flattens the text as the reply's Content-Length does.
  for (let i = 0; i < calls; i++) sink += Buffer.byteLength(serialize(object));
  return Number(process.hrtime.bigint() - started) / calls;
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

for (const [name, object] of cases) {
  const compiled = name === 'pay' ? compiledPay.serialize : compiledToken.serialize;
  const all = [...variants, ['compiled', compiled]];
  const samples = all.map(() => []);
  for (let round = -2; round < rounds; round++) { // two warm-up rounds
    for (let v = 0; v < all.length; v++) {
      const ns = time(all[v][1], object);
      if (round >= 0) samples[v].push(ns);
    }
  }
  const base = median(samples[0]);
  console.log(`${name} response (${sortedJson(object).length} bytes), ${rounds} interleaved rounds of ${calls} calls:`);
  for (let v = 0; v < all.length; v++) {
    const m = median(samples[v]);
    console.log(`  ${all[v][0].padEnd(18)} median ${m.toFixed(0).padStart(6)} ns  (min ${Math.min(...samples[v]).toFixed(0)}, max ${Math.max(...samples[v]).toFixed(0)})  ${(base / m).toFixed(2)}x`);
  }
}
if (sink === 0) console.log('');
