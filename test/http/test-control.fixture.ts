// Helpers of the test-control suites (routes/admin-control.ts): merchants whose ids extend one
// another (TEST1, TEST10) with repositories that do too, two merchants sharing a repository, a
// scheme-token repository; the control requests, and the merchant requests whose answers a
// control operation changes. Named *.fixture.ts so tap does not run it as a test file.
import type { Test } from 'tap';
import type { EventStoreConfig } from '../../config.js';
import { basic, buildTestApp, cardBody, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { waitFor } from '../helpers/poll.js';

export type App = Awaited<ReturnType<typeof buildTestApp>>;
export interface Merchant { id: string; apiPassword: string; repository: { id: string } }

const repository = (id: string, extra: Record<string, unknown> = {}) =>
  ({ id, tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS', ...extra });
const merchant = (id: string, repo: ReturnType<typeof repository>) => ({ id, apiPassword: `test-control-password-${id.toLowerCase()}-0123456789`, repository: repo });

export const TEST1 = merchant('TEST1', repository('REPO1', { tokenManagement: 'UNIQUE_CARD' }));
export const TEST10 = merchant('TEST10', repository('REPO10', { tokenManagement: 'UNIQUE_CARD' }));
export const SHARED_A = merchant('SHAREDA', repository('REPOS'));
export const SHARED_B = merchant('SHAREDB', repository('REPOS'));
export const SCHEME = merchant('SCHEME1', repository('REPO6', { schemeTokenization: true, schemeTokenProvisioningMode: 'ASYNCHRONOUS' }));
export const CONTROL_MERCHANTS = { merchants: [TEST1, TEST10, SHARED_A, SHARED_B, SCHEME] };

export const ADMIN_PASSWORD = 'test-control-admin-password';
export const ADMIN = basic('admin', ADMIN_PASSWORD);

export function controlApp(t: Test, options: { testControl?: boolean; eventStore?: EventStoreConfig; merchants?: unknown } = {}) {
  return buildTestApp(t, { merchants: CONTROL_MERCHANTS, adminPassword: ADMIN_PASSWORD, testControl: options.testControl ?? true, ...options });
}

/** A test-control request: `path` under /admin/api/test-control. */
export const control = (app: App, method: 'GET' | 'POST', path: string, payload?: unknown, authorization = ADMIN) =>
  app.inject({ method, url: `/admin/api/test-control${path}`, headers: { authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });

export async function createToken(app: App, m: Merchant, number = '5123450000000008', month = '1', year = '39') {
  const res = await app.inject({ method: 'POST', url: tokenPath(m.id), headers: { authorization: tokenAuth(m) }, payload: cardBody(number, month, year) });
  if (res.statusCode !== 201) throw new Error(`token creation failed: ${res.statusCode} ${res.body}`);
  return res.json() as { token: string; schemeToken?: { status?: string } };
}

export const retrieveToken = (app: App, m: Merchant, token: string) =>
  app.inject({ method: 'GET', url: `${tokenPath(m.id)}/${token}`, headers: { authorization: tokenAuth(m) } });

export const pay = (app: App, m: Merchant, token: string, order: string, transaction = '1', amount = '12.50') =>
  app.inject({ method: 'PUT', url: payPath(m.id, token, order, transaction), headers: { authorization: payAuth(m) }, payload: { apiOperation: 'PAY', transaction: { amount, currency: 'USD' } } });

export const retrieveOrder = (app: App, m: Merchant, order: string) =>
  app.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${m.id}/order/${order}`, headers: { authorization: payAuth(m) } });

export const retrieveTransaction = (app: App, m: Merchant, order: string, transaction = '1') =>
  app.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${m.id}/order/${order}/transaction/${transaction}`, headers: { authorization: payAuth(m) } });

const sessionPath = (m: Merchant, id?: string) => `/api/rest/version/100/merchant/${m.id}/session${id ? `/${id}` : ''}`;

export async function createSession(app: App, m: Merchant) {
  const res = await app.inject({ method: 'POST', url: sessionPath(m), headers: { authorization: tokenAuth(m) }, payload: {} });
  if (res.statusCode !== 201) throw new Error(`session creation failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { session: { id: string } }).session.id;
}

export const retrieveSession = (app: App, m: Merchant, id: string) =>
  app.inject({ method: 'GET', url: sessionPath(m, id), headers: { authorization: tokenAuth(m) } });

/** The events of the log, as the store holds them (every epoch). */
export const logTypes = async (app: App, stream: string) =>
  (await app.gateway.store.readAll()).filter((e) => e.stream === stream).map((e) => e.type);

/** Waits for `check` to hold (test/helpers/poll.ts: a deadline scaled by the load). */
export async function until(what: string, check: () => Promise<boolean> | boolean, ms = 30_000) {
  await waitFor(check, what, { timeoutMs: ms, intervalMs: 20 });
}

/** The gateway's error body with this status and field. */
export function refused(t: Test, res: { statusCode: number; json(): unknown }, status: number, field: string | undefined, what: string) {
  t.equal(res.statusCode, status, `${what}: ${status}`);
  const body = res.json() as { result?: string; error?: { cause?: string; field?: string } };
  t.equal(body.result, 'ERROR', `${what}: the gateway's error body`);
  t.equal(body.error?.cause, 'INVALID_REQUEST', `${what}: INVALID_REQUEST`);
  t.equal(body.error?.field, field, `${what}: field ${field}`);
}
