// Read model of tokens: what a retrieve-token call answers, with account numbers masked (sealed
// values never enter it). Version 2: every source of funds, scheme tokens, wallet shipping.
import type { OrderTransactionRecorded, PaymentRecorded, SchemeTokenDetails, SchemeTokenStatusChanged, StoredShipping, StoredSourceOfFunds, TokenCreated, TokenUpdated } from '../domain/events.js';
import type { ProjectedEvent } from '../store/event-store.js';
import type { Projection } from './projection.js';

export interface CardDoc { number: string; brand: string; scheme: string; fundingMethod: string; expiry: string }
export interface ProvidedDoc {
  card?: CardDoc;
  ach?: Record<string, string>;
  directDebitCanada?: Record<string, string>;
  wallet?: unknown;
}

export interface TokenDoc {
  merchantId: string;
  repositoryId: string;
  token: string;
  status: string;
  sourceOfFunds: { type: StoredSourceOfFunds['type']; provided: ProvidedDoc };
  verificationStrategy: string;
  /** Present once a scheme token was requested; nextActionAt while the reactor has work pending. */
  schemeToken?: SchemeTokenDetails;
  /** Only for tokens holding wallet billing-agreement details (spec rule 7). */
  shipping?: StoredShipping;
  usage: { lastUpdated: string; lastUpdatedBy: string; lastUsed?: string };
  createdAt: string;
  revision: number;
}

export const tokenKey = (repositoryId: string, token: string) => `${repositoryId}/${token}`;

const mmyy = (e: { month: number; year: number }) =>
  String(e.month).padStart(2, '0') + String(e.year).padStart(2, '0');

/** A stored group without its sealed members. */
const unsealed = (group: object): Record<string, string> =>
  Object.fromEntries(Object.entries(group).filter(([k]) => !k.endsWith('Sealed'))) as Record<string, string>;

function providedOf(source: StoredSourceOfFunds): ProvidedDoc {
  switch (source.type) {
    case 'CARD': {
      const { card } = source;
      return { card: { number: card.number, brand: card.brand, scheme: card.scheme, fundingMethod: card.fundingMethod, expiry: mmyy(card.expiry) } };
    }
    case 'ACH': return { ach: unsealed(source.ach) };
    case 'DIRECT_DEBIT_CANADA': return { directDebitCanada: unsealed(source.directDebitCanada) };
    case 'WALLET': return { wallet: source.wallet };
  }
}

function updatedProvided(doc: TokenDoc, d: TokenUpdated['data']): ProvidedDoc {
  const { provided } = doc.sourceOfFunds;
  // A new card number may be another brand: the whole card is taken from the event.
  if (d.card && provided.card) return providedOf({ type: 'CARD', card: d.card });
  if (d.ach) return { ach: unsealed(d.ach) };
  if (d.directDebitCanada) return { directDebitCanada: unsealed(d.directDebitCanada) };
  if (d.wallet) return { wallet: d.wallet };
  return provided;
}

/** The order API's transactions that send the token (a capture, refund or void names none). */
const usesToken = (d: OrderTransactionRecorded['data']) => d.apiOperation === 'PAY' || d.apiOperation === 'AUTHORIZE' || d.apiOperation === 'VERIFY';

export const tokensProjection: Projection<TokenDoc> = {
  name: 'tokens',
  // 3: a PAY, AUTHORIZE or VERIFY of the order API (OrderTransactionRecorded) uses the token too (usage.lastUsed).
  // 4: a token updated to a card of another brand shows its brand, scheme and funding method.
  version: 4,
  // Read by Retrieve Token only (services/queries/retrieval.ts), which reads after a catch-up: written
  // after the reply, in batches (a pay's token usage, a create's document).
  apply: 'deferred',
  handles: new Set(['TokenCreated', 'TokenUpdated', 'TokenDeleted', 'SchemeTokenStatusChanged', 'PaymentRecorded', 'OrderTransactionRecorded']),
  // What keysOf and evolve read (a replay may hand only these; TokenCreated, TokenUpdated whole).
  reads: {
    TokenDeleted: ['repositoryId', 'token'],
    SchemeTokenStatusChanged: ['repositoryId', 'token', 'schemeToken'],
    PaymentRecorded: ['repositoryId', 'token', 'timeOfRecord'],
    OrderTransactionRecorded: ['source.repositoryId', 'source.token', 'apiOperation', 'timeOfRecord'],
  },
  // A token's document is keyed by its stream's name parts: at the stream's first event (its
  // TokenCreated) there is none yet (payments name a token only once it exists): no lookup.
  isNew: (event) => event.type === 'TokenCreated' && event.revision === 0n,
  keysOf(event) {
    if (event.type === 'OrderTransactionRecorded') {
      const d = event.data as OrderTransactionRecorded['data'];
      return d.source?.repositoryId !== undefined && d.source.token !== undefined && usesToken(d) ? [tokenKey(d.source.repositoryId, d.source.token)] : [];
    }
    const d = event.data as { repositoryId: string; token: string };
    return [tokenKey(d.repositoryId, d.token)];
  },
  evolve(doc, event: ProjectedEvent) {
    switch (event.type) {
      case 'TokenCreated': {
        const d = event.data as TokenCreated['data'];
        return {
          merchantId: d.merchantId,
          repositoryId: d.repositoryId,
          token: d.token,
          status: d.status,
          sourceOfFunds: { type: d.sourceOfFunds.type, provided: providedOf(d.sourceOfFunds) },
          verificationStrategy: d.verification?.strategy ?? 'BASIC',
          ...(d.schemeToken ? { schemeToken: d.schemeToken } : {}),
          ...(d.shipping ? { shipping: d.shipping } : {}),
          usage: { lastUpdated: d.createdAt, lastUpdatedBy: d.merchantId },
          createdAt: d.createdAt,
          revision: Number(event.revision),
        };
      }
      case 'TokenUpdated': {
        if (!doc) return undefined;
        const d = event.data as TokenUpdated['data'];
        return {
          ...doc,
          sourceOfFunds: { ...doc.sourceOfFunds, provided: updatedProvided(doc, d) },
          ...(d.verification ? { verificationStrategy: d.verification.strategy } : {}),
          ...(d.schemeToken ? { schemeToken: d.schemeToken } : {}),
          ...(d.shipping ? { shipping: d.shipping } : {}),
          usage: { ...doc.usage, lastUpdated: d.updatedAt, lastUpdatedBy: d.merchantId },
          revision: Number(event.revision),
        };
      }
      case 'SchemeTokenStatusChanged': {
        if (!doc) return undefined;
        const d = event.data as SchemeTokenStatusChanged['data'];
        return { ...doc, schemeToken: d.schemeToken, revision: Number(event.revision) };
      }
      case 'TokenDeleted':
        // A deleted token is gone from the read model; its events keep the history.
        return undefined;
      case 'PaymentRecorded': {
        if (!doc) return undefined;
        const d = event.data as PaymentRecorded['data'];
        return { ...doc, usage: { ...doc.usage, lastUsed: d.timeOfRecord } };
      }
      case 'OrderTransactionRecorded': {
        if (!doc) return undefined;
        const d = event.data as OrderTransactionRecorded['data'];
        return usesToken(d) ? { ...doc, usage: { ...doc.usage, lastUsed: d.timeOfRecord } } : doc;
      }
      default:
        return doc;
    }
  },
};
