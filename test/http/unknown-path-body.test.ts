// A path that names no operation is a 404 whatever its body: the body is not parsed (a form, not
// JSON, is no 400), nor decoded (an unknown Content-Encoding is no 415). Under /api/rest/ the
// credentials are still checked first (plugins/auth.ts): with valid ones, the same 404.
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { assertSortedJson } from './http.fixture.js';

const FORM = 'apiOperation=PAY&merchant=TESTMERCHANT01&order.id=1&transaction.id=1';

t.test('an unknown path with a body that is not JSON is a 404, not a parse error', async (t) => {
  const app = await buildTestApp(t);
  const cases: Array<[string, string, Record<string, string>, string]> = [
    ['a form on an unknown path', '/nothing/here', { 'content-type': 'application/x-www-form-urlencoded' }, FORM],
    ['a form under /api/ naming no operation', '/api/other/version/55', { 'content-type': 'application/x-www-form-urlencoded' }, FORM],
    ['broken JSON under /api/rest/ with valid credentials', `/api/rest/version/100/merchant/${M1.id}/nothing`, { 'content-type': 'application/json', authorization: tokenAuth(M1) }, '{"a":'],
    ['an unknown Content-Encoding', '/nothing/here', { 'content-type': 'application/json', 'content-encoding': 'zstd-unknown' }, '{}'],
  ];
  for (const [what, url, headers, payload] of cases) {
    const res = await app.inject({ method: 'POST', url, headers, payload });
    t.equal(res.statusCode, 404, `${what}: 404 (got ${res.statusCode} ${res.body})`);
    assertSortedJson(t, res, what);
    t.equal(res.json().error.cause, 'INVALID_REQUEST', `${what}: cause`);
    t.match(res.json().error.explanation, /^No operation for POST on this path/, `${what}: the 404's explanation`);
  }
});
