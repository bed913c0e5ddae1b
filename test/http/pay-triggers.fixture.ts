// Helpers of the pay trigger, concurrency and resolution tests: a merchant with rules of its own,
// payments as any merchant, tokens with any expiry (also a past one), and the "Outcome triggers"
// tables of docs/triggers.md, parsed so the tests run every row that page documents.
// Named *.fixture.ts so tap does not run it as a test file.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { buildTestApp, MERCHANTS, payAuth, payPath } from '../helpers/app.js';
import { streams } from '../../domain/events.js';

export type App = Awaited<ReturnType<typeof buildTestApp>>;
export interface Merchant { id: string; apiPassword: string }

/** A merchant whose profile adds rules (docs/triggers.md, "Merchant rules"). */
export const RULES = {
  id: 'RULES01',
  apiPassword: 'test-password-rules-01-0123456789abc',
  repository: { id: 'REPO05', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
  rules: [
    { match: { amount: '13.13' }, answer: { gatewayCode: 'INSUFFICIENT_FUNDS' } },
    { match: { reference: 'slow' }, answer: { latencyMs: 2000 } }, // long enough to overlap under CI's load
    { match: { reference: 'busy' }, answer: { fault: 'SERVER_BUSY' } },
    { match: { reference: 'lost' }, answer: { fault: 'SERVER_FAILED' } },
    { match: { amount: { min: '5000', max: '5999.99' }, currency: 'USD' }, answer: { risk: 'REVIEW' } },
    { match: { amount: { min: '6000' }, currency: 'USD' }, answer: { risk: 'REJECT' } },
    { match: { card: 'VISA', amount: '7.77' }, answer: { gatewayCode: 'REFERRED', latencyMs: 50 } },
  ],
};

export const MERCHANTS_WITH_RULES = { merchants: [...MERCHANTS.merchants, RULES] };

let sequence = 0;
/** A fresh order id per call (11 digits, distinct across the test files' processes). */
export const newOrderId = () => `${3 + (process.pid % 6)}${String(Date.now() % 1e6).padStart(6, '0')}${String(sequence++ % 10000).padStart(4, '0')}`;

export const payBody = (amount = '12.50', extra: Record<string, unknown> = {}) =>
  ({ apiOperation: 'PAY', transaction: { amount, currency: 'USD' }, ...extra });

export function payAs(app: App, merchant: Merchant, token: string, body: unknown, order = newOrderId(), transaction = '1') {
  return app.inject({ method: 'PUT', url: payPath(merchant.id, token, order, transaction), headers: { authorization: payAuth(merchant) }, payload: body as object });
}

/** A stored card with any expiry, for any merchant: written as the TokenCreated event itself (a card can
 *  be stored before its expiry passes, which the create operation cannot do after). */
export async function storedCard(app: App, merchant: { id: string; repository: { id: string } }, month: number, year: number, brand = 'MASTERCARD', number = '512345xxxxxx0008') {
  const token = `9${String(Date.now()).slice(-9)}${String(sequence++).padStart(6, '0')}`.slice(0, 16);
  const now = new Date().toISOString();
  await app.gateway.store.append(streams.token(merchant.repository.id, token), [{
    id: randomUUID(),
    type: 'TokenCreated',
    data: {
      merchantId: merchant.id, repositoryId: merchant.repository.id, token, tokenGeneration: 'RANDOM',
      sourceOfFunds: { type: 'CARD', card: { numberSealed: 'v1.none', number, brand, scheme: brand, fundingMethod: brand === 'AMEX' ? 'CHARGE' : 'CREDIT', expiry: { month, year } } },
      verification: { strategy: 'BASIC', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' }, status: 'VALID', createdAt: now,
    },
    metadata: { correlationId: 'test', recordedAt: now },
  }], { expectedRevision: 'no_stream' });
  return token;
}

/** The tables of docs/triggers.md ("Outcome triggers"), keyed by their first header cell. */
export function readmeTriggerTables(): Map<string, string[][]> {
  const section = readFileSync(fileURLToPath(new URL('../../docs/triggers.md', import.meta.url)), 'utf8');
  const tables = new Map<string, string[][]>();
  let rows: string[][] | undefined;
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) { rows = undefined; continue; }
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (/^-+$/.test(cells[0] ?? '')) continue;
    if (!rows) { rows = []; tables.set(cells[0] ?? '', rows); continue; }
    rows.push(cells);
  }
  return tables;
}

/** "`RISK_ACCEPT`" → "RISK_ACCEPT"; "(none)" → undefined. */
export const cell = (text: string | undefined): string | undefined => {
  const plain = (text ?? '').replace(/`/g, '').trim();
  return plain === '(none)' || plain === '' ? undefined : plain;
};
