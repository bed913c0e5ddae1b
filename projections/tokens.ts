// Read model of tokens: what a retrieve-token call answers, with card data masked.
import type { PaymentRecorded, TokenCreated, TokenUpdated } from '../domain/events.js';
import type { RecordedEvent } from '../store/event-store.js';
import type { Projection } from './projection.js';

export interface TokenDoc {
  merchantId: string;
  repositoryId: string;
  token: string;
  status: string;
  sourceOfFunds: { type: 'CARD'; provided: { card: { number: string; brand: string; scheme: string; fundingMethod: string; expiry: string } } };
  verificationStrategy: string;
  usage: { lastUpdated: string; lastUpdatedBy: string; lastUsed?: string };
  createdAt: string;
  revision: number;
}

export const tokenKey = (repositoryId: string, token: string) => `${repositoryId}/${token}`;

const mmyy = (e: { month: number; year: number }) =>
  String(e.month).padStart(2, '0') + String(e.year).padStart(2, '0');

export const tokensProjection: Projection<TokenDoc> = {
  name: 'tokens',
  version: 1,
  handles: new Set(['TokenCreated', 'TokenUpdated', 'TokenDeleted', 'PaymentRecorded']),
  keysOf(event) {
    const d = event.data as { repositoryId: string; token: string };
    return [tokenKey(d.repositoryId, d.token)];
  },
  evolve(doc, event: RecordedEvent) {
    switch (event.type) {
      case 'TokenCreated': {
        const d = event.data as TokenCreated['data'];
        const card = d.sourceOfFunds.card;
        return {
          merchantId: d.merchantId,
          repositoryId: d.repositoryId,
          token: d.token,
          status: d.status,
          sourceOfFunds: {
            type: 'CARD',
            provided: { card: { number: card.number, brand: card.brand, scheme: card.scheme, fundingMethod: card.fundingMethod, expiry: mmyy(card.expiry) } },
          },
          verificationStrategy: d.verification.strategy,
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
          sourceOfFunds: { ...doc.sourceOfFunds, provided: { card: { ...doc.sourceOfFunds.provided.card, number: d.card.number, expiry: mmyy(d.card.expiry) } } },
          usage: { ...doc.usage, lastUpdated: d.updatedAt, lastUpdatedBy: d.merchantId },
          revision: Number(event.revision),
        };
      }
      case 'TokenDeleted':
        // A deleted token is gone from the read model; its events keep the history.
        return undefined;
      case 'PaymentRecorded': {
        if (!doc) return undefined;
        const d = event.data as PaymentRecorded['data'];
        return { ...doc, usage: { ...doc.usage, lastUsed: d.timeOfRecord } };
      }
      default:
        return doc;
    }
  },
};
