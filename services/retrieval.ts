// Retrieve operations in the real gateway's shapes, answered from the read models (brought up to
// date first, so writes by other processes sharing the store are seen).
import { InvalidRequest } from '../domain/errors.js';
import type { MerchantProfile } from '../merchants.js';
import { tokenKey, type TokenDoc } from '../projections/tokens.js';
import type { Gateway } from './gateway.js';

export async function retrieveToken(gateway: Gateway, merchant: MerchantProfile, token: string) {
  await gateway.readModels.catchUp();
  const doc = gateway.readModels.get<TokenDoc>('tokens', tokenKey(merchant.repository.id, token));
  // Only this merchant's repository is consulted: nothing is said of tokens elsewhere.
  if (!doc) throw new InvalidRequest(`Value '${token}' is invalid. No such token in the merchant's token repository`, 'tokenid');
  return {
    repositoryId: doc.repositoryId,
    result: 'SUCCESS',
    sourceOfFunds: doc.sourceOfFunds,
    status: doc.status,
    token: doc.token,
    usage: doc.usage,
    verificationStrategy: doc.verificationStrategy,
  };
}
