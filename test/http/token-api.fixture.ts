// Shared by the test/http/token-*.test.ts suites of issue 3: merchants with every repository
// setting, request helpers and event inspection. Named *.fixture.ts so tap does not run it.
import type { Test } from 'tap';
import { buildTestApp, MERCHANTS, tokenAuth, tokenPath } from '../helpers/app.js';

const repo = (id: string, tokenGeneration: string, tokenManagement: string, extra: Record<string, unknown> = {}) =>
  ({ id, tokenGeneration, tokenManagement, schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS', ...extra });
const merchant = (id: string, repository: ReturnType<typeof repo>) => ({ id, apiPassword: `test-password-${id.toLowerCase()}-0123456789abcdef`, repository });

export const ACCOUNT = merchant('ACCOUNT01', repo('REPOACC', 'RANDOM', 'UNIQUE_ACCOUNT_IDENTIFIER'));
export const PRESERVE_UNIQUE = merchant('PRESERVEU01', repo('REPOPU', 'PRESERVE_6_4', 'UNIQUE_CARD'));
export const SCHEME = merchant('SCHEME01', repo('REPOSCH', 'RANDOM', 'UNIQUE_TOKEN', { schemeTokenization: true }));
export const SCHEME_SYNC = merchant('SCHEMESYNC01', repo('REPOSS', 'RANDOM', 'UNIQUE_TOKEN', { schemeTokenization: true, schemeTokenProvisioningMode: 'SYNCHRONOUS' }));
export const SCHEME_UNIQUE = merchant('SCHEMEU01', repo('REPOSU', 'RANDOM', 'UNIQUE_CARD', { schemeTokenization: true, schemeTokenProvisioningMode: 'ATTEMPT_SYNCHRONOUS' }));
export const MASK04 = merchant('MASK0401', repo('REPOM04', 'RANDOM', 'UNIQUE_TOKEN', { cardNumberMasking: '0.4' }));

export const ALL_MERCHANTS = { merchants: [...MERCHANTS.merchants, ACCOUNT, PRESERVE_UNIQUE, SCHEME, SCHEME_SYNC, SCHEME_UNIQUE, MASK04] };

export type Merchant = { id: string; apiPassword: string };
export type App = Awaited<ReturnType<typeof buildTestApp>>;

export const app = (t: Test, options: Parameters<typeof buildTestApp>[1] = {}) => buildTestApp(t, { merchants: ALL_MERCHANTS, ...options });

export const create = (a: App, m: Merchant, payload: unknown, headers: Record<string, string> = {}) =>
  a.inject({ method: 'POST', url: tokenPath(m.id), headers: { authorization: tokenAuth(m), ...headers }, payload: payload as Record<string, unknown> });

export const retrieve = (a: App, m: Merchant, token: string) =>
  a.inject({ method: 'GET', url: `${tokenPath(m.id)}/${token}`, headers: { authorization: tokenAuth(m) } });

export const card = (number = '5123450000000008', month = '1', year = '39', extra: Record<string, unknown> = {}) =>
  ({ number, expiry: { month, year }, ...extra });

export const ach = (extra: Record<string, unknown> = {}) => ({
  accountType: 'CONSUMER_CHECKING', bankAccountHolder: 'Jane Q Public', bankAccountNumber: '000123456789', routingNumber: '021000021', secCode: 'WEB', ...extra,
});

export const directDebitCanada = (extra: Record<string, unknown> = {}) => ({
  accountType: 'CONSUMER_SAVINGS', bankAccountHolder: 'Jean Tremblay', bankAccountNumber: '7654321098', financialInstitutionNumber: '001', transitNumber: '12345', ...extra,
});

export const wallet = (id = 'B-7YH12345AB678901C', cardinality = 'SINGLE', extra: Record<string, unknown> = {}) => ({
  accountEmail: 'payer@example.com', accountHolder: 'Jane Payer', payerId: 'PAYER0000001',
  billingAgreement: { cardinality, description: 'Monthly box', id, name: 'Box subscription' }, ...extra,
});

/** Every event of the store, as JSON text. */
export async function storeText(a: App): Promise<string> {
  return JSON.stringify(await a.gateway.store.readAll(), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

export async function typesOf(a: App): Promise<string[]> {
  return (await a.gateway.store.readAll()).map((e) => e.type);
}

export const count = (types: string[], type: string) => types.filter((x) => x === type).length;
