// The test-control API (docs/timeline-and-cli.md, "Test control"): what a test suite steers the
// sandbox with, under /admin/api/test-control/, behind the admin's credentials and Host check
// (registered inside the admin plugin, routes/admin.ts). Off unless TEST_CONTROL is on (by default
// on a loopback HOST only, config.ts): then every route answers 404 with the reason, before its
// input is looked at. Each operation is one event (or a few) in the store: the history replays.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Refusal } from '../domain/errors.js';
import { MAX_ADVANCE_MS } from '../domain/sandbox/sandbox.js';
import type { MerchantProfile } from '../merchants.js';
import { errorBody } from '../plugins/errors.js';
import { Pattern, Str, StringEnum, Strict } from '../schemas/common.js';
import { fireNotification, redeliverNotification } from '../services/test-control/notifications.js';
import { CHOOSABLE_OUTCOMES, resolveUnknownNow } from '../services/test-control/resolve-unknown.js';
import { advanceClock, clockOf, resetMerchant } from '../services/test-control/sandbox-commands.js';

export const TEST_CONTROL_PREFIX = '/admin/api/test-control';

const MerchantParams = Type.Object({ merchantId: Pattern(1, 40, '^[0-9A-Za-z_-]+$', "a merchant id: characters 0-9 a-z A-Z '-' '_'") });
const TransactionParams = Type.Object({
  merchantId: MerchantParams.properties.merchantId, orderId: Str(1, 40, 'an order id'), transactionId: Str(1, 40, 'a transaction id'),
});
const NotificationParams = Type.Object({ merchantId: MerchantParams.properties.merchantId, notificationId: Str(1, 64, 'a notification id (X-Notification-Id)') });
const AdvanceBody = Strict({
  milliseconds: Type.Integer({ minimum: 1, maximum: MAX_ADVANCE_MS, description: `how far to move the merchant's clock forward: 1 to ${MAX_ADVANCE_MS} ms` }),
});
const ResolveBody = Strict({ gatewayCode: StringEnum(CHOOSABLE_OUTCOMES, 'the final outcome: APPROVED, or a decline the acquirer answers') });

export interface TestControlOptions {
  /** TEST_CONTROL: off, every route answers 404 saying how to turn it on. */
  enabled: boolean;
}

const OFF = 'The test-control API is off: start tokengate with TEST_CONTROL=on (it is on by default only on a loopback HOST)';

const testControl: FastifyPluginAsyncTypebox<TestControlOptions> = async (app, options) => {
  // After the admin's own hooks (Host check, credentials), before validation: off says only that.
  app.addHook('onRequest', (request, reply, done) => {
    if (options.enabled) {
      done();
      return;
    }
    request.log.info({ cause: 'INVALID_REQUEST', status: 404 }, 'test-control API off: request refused');
    void reply.code(404).send(errorBody('INVALID_REQUEST', { explanation: OFF }));
  });
  const merchantOf = (merchantId: string): MerchantProfile => {
    const merchant = app.gateway.merchants.get(merchantId);
    if (!merchant) throw new Refusal(404, `No merchant '${merchantId}' in the merchants file`, 'merchantId');
    return merchant;
  };
  const admin = { tags: ['admin'], security: [{ adminAuth: [] }] };

  app.post(`${TEST_CONTROL_PREFIX}/merchants/:merchantId/reset`, {
    schema: { ...admin, params: MerchantParams, summary: "Test control: reset a merchant's data (a new epoch; other merchants untouched)" },
  }, async (request) => resetMerchant(app.gateway, merchantOf(request.params.merchantId), request.meta()));

  app.get(`${TEST_CONTROL_PREFIX}/merchants/:merchantId/clock`, {
    schema: { ...admin, params: MerchantParams, summary: "Test control: a merchant's sandbox clock" },
  }, async (request) => clockOf(app.gateway, merchantOf(request.params.merchantId)));

  app.post(`${TEST_CONTROL_PREFIX}/merchants/:merchantId/clock/advance`, {
    schema: { ...admin, params: MerchantParams, body: AdvanceBody, summary: "Test control: move a merchant's clock forward (sessions, UNKNOWN resolutions, scheme tokens, notification retries follow)" },
  }, async (request) => advanceClock(app.gateway, merchantOf(request.params.merchantId), request.body.milliseconds, request.meta()));

  app.post(`${TEST_CONTROL_PREFIX}/merchants/:merchantId/orders/:orderId/transactions/:transactionId/resolve`, {
    schema: { ...admin, params: TransactionParams, body: ResolveBody, summary: 'Test control: make an UNKNOWN transaction final now, with the outcome chosen' },
  }, async (request) => {
    const { merchantId, orderId, transactionId } = request.params;
    return resolveUnknownNow(app.gateway, merchantOf(merchantId), orderId, transactionId, request.body.gatewayCode, request.meta());
  });

  app.post(`${TEST_CONTROL_PREFIX}/merchants/:merchantId/orders/:orderId/transactions/:transactionId/notify`, {
    schema: { ...admin, params: TransactionParams, summary: 'Test control: fire a new webhook notification of a transaction as it stands now' },
  }, async (request, reply) => {
    const { merchantId, orderId, transactionId } = request.params;
    return reply.code(202).send(await fireNotification(app.gateway, merchantOf(merchantId), orderId, transactionId, request.meta()));
  });

  app.post(`${TEST_CONTROL_PREFIX}/merchants/:merchantId/notifications/:notificationId/redeliver`, {
    schema: { ...admin, params: NotificationParams, summary: 'Test control: send a webhook notification again now' },
  }, async (request) => redeliverNotification(app.gateway, merchantOf(request.params.merchantId), request.params.notificationId, request.meta()));
};

export default testControl;
