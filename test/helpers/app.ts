// Shared test fixtures: merchants, credentials, and an app on a fresh store per test.
import type { Test } from 'tap';
import { buildApp } from '../../app.js';
import type { EventStoreConfig, Limits } from '../../config.js';
import type { JournalPluginOptions } from '../../plugins/journal.js';
import { parseMerchants } from '../../merchants.js';

export const MERCHANTS = {
  merchants: [
    {
      id: 'TESTMERCHANT01',
      apiPassword: 'test-password-merchant-01-0123456789',
      repository: { id: 'REPO01', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
    },
    {
      id: 'TESTMERCHANT02',
      apiPassword: 'test-password-merchant-02-0123456789',
      repository: { id: 'REPO02', tokenGeneration: 'PRESERVE_6_4', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
    },
    {
      id: 'UNIQUE01',
      apiPassword: 'test-password-unique-01-01234567890',
      repository: { id: 'REPO04', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_CARD', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
    },
    {
      id: 'SUPPLIED01',
      apiPassword: 'test-password-supplied-01-0123456789',
      repository: { id: 'REPO03', tokenGeneration: 'MERCHANT_SUPPLIED', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
    },
  ],
};

export const M1 = MERCHANTS.merchants[0]!;
export const M2 = MERCHANTS.merchants[1]!;
/** UNIQUE_CARD management, RANDOM generation. */
export const UNIQUE = MERCHANTS.merchants[2]!;

export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Create-token credentials: merchant.<id> and its password. */
export const tokenAuth = (m: { id: string; apiPassword: string }) => basic(`merchant.${m.id}`, m.apiPassword);
/** Pay credentials: blank user id and the API password. */
export const payAuth = (m: { apiPassword: string }) => basic('', m.apiPassword);

export const tokenPath = (merchantId: string) => `/api/rest/version/100/merchant/${merchantId}/token`;
export const payPath = (merchantId: string, token: string, orderId: string, transactionId: string) =>
  `/api/rest/version/3/merchant/${merchantId}/token/${token}/order/${orderId}/transaction/${encodeURIComponent(transactionId)}`;

export const cardBody = (number = '5123450000000008', month = '1', year = '39', extra: Record<string, unknown> = {}) => ({
  sourceOfFunds: { type: 'CARD', provided: { card: { number, expiry: { month, year }, ...extra } } },
});

/**
 * An app on a fresh store. Tests send many refused credentials on purpose, so the limit of failed
 * authentications per client is high unless a test sets it (test/http/auth-limits.test.ts does).
 */
export async function buildTestApp(t: Test, options: { eventStore?: EventStoreConfig; merchants?: unknown; adminPassword?: string; testControl?: boolean; limits?: Partial<Limits>; journal?: JournalPluginOptions } = {}) {
  const app = await buildApp({
    eventStore: options.eventStore ?? { kind: 'memory' },
    merchants: parseMerchants(options.merchants ?? MERCHANTS, 'test merchants'),
    adminPassword: options.adminPassword,
    testControl: options.testControl,
    limits: { authFailureLimit: 1_000_000, ...options.limits },
    journal: options.journal,
  });
  t.teardown(() => app.close());
  return app;
}

/** Store a card for a merchant through the HTTP API and return the token id. */
export async function createToken(app: Awaited<ReturnType<typeof buildTestApp>>, m = M1, number = '5123450000000008', month = '1', year = '39') {
  const res = await app.inject({ method: 'POST', url: tokenPath(m.id), headers: { authorization: tokenAuth(m) }, payload: cardBody(number, month, year) });
  if (res.statusCode !== 201) throw new Error(`token creation failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { token: string }).token;
}
