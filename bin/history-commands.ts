// The commands that audit one stream: a token's history, an order's timeline, each as of a
// revision or an instant.
import { asOf, asOfOptions, printHistory, UsageError, withStores, type Command } from './command-kit.js';

export const token: Command = {
  summary: "audit a token's full history: every event, when, by which merchant and request, what changed",
  args: '<token> [options]',
  options: { repository: { type: 'string', value: 'id', help: 'the token repository (needed only when several hold this token id)' }, ...asOfOptions },
  example: 'tokengate token 9001683317748856 --as-of 2026-11-21T10:00:00Z',
  async run([token], values) {
    if (!token) throw new UsageError('name the token: tokengate token <token>');
    return withStores(values, async ({ store }, { repositoriesOfToken, tokenHistory }) => {
      let repositoryId = typeof values.repository === 'string' ? values.repository : undefined;
      if (!repositoryId) {
        const found = await repositoriesOfToken(store, token);
        if (found.length > 1) throw new UsageError(`token ${token} exists in repositories ${found.join(', ')}: choose one with --repository`);
        repositoryId = found[0];
      }
      const result = repositoryId ? await tokenHistory(store, repositoryId, token, asOf(values)) : { entries: [], doc: undefined };
      if (result.entries.length === 0) {
        process.stderr.write(`tokengate token: no token ${token}${repositoryId ? ` in repository ${repositoryId}` : ''}\n`);
        return 1;
      }
      return printHistory(values, `Token ${token} (repository ${repositoryId})`, result);
    });
  },
};

export const order: Command = {
  summary: 'the timeline of one order: its events with what changed, and its state',
  args: '<merchantId> <orderId> [options]',
  options: asOfOptions,
  example: 'tokengate order TESTMERCHANT01 10000000001 --as-of-revision 0',
  async run([merchantId, orderId], values) {
    if (!merchantId || !orderId) throw new UsageError('name the order: tokengate order <merchantId> <orderId>');
    return withStores(values, async ({ store }, { orderHistory }) => {
      const result = await orderHistory(store, merchantId, orderId, asOf(values));
      if (result.entries.length === 0) {
        process.stderr.write(`tokengate order: no order ${orderId} of merchant ${merchantId}${values['as-of'] || values['as-of-revision'] ? ' at that point' : ''}\n`);
        return 1;
      }
      return printHistory(values, `Order ${orderId} of merchant ${merchantId}`, result);
    });
  },
};
