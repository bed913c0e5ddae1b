// The application is itself a plugin tree: errors, the gateway's stores, one plugin per operation.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EventStoreConfig } from './config.js';
import type { Merchants } from './merchants.js';
import errors from './plugins/errors.js';
import gateway from './plugins/gateway.js';
import pay from './plugins/pay.js';
import token from './plugins/token.js';
import admin from './plugins/admin.js';
import openapi from './plugins/openapi.js';

export interface AppOptions {
  eventStore: EventStoreConfig;
  merchants: Merchants;
  logger?: FastifyServerOptions['logger'];
  /** ADMIN_PASSWORD: enables the timeline API and page under /admin. */
  adminPassword?: string | undefined;
}

/** pino options: JSON lines, credentials and card data redacted wherever they might appear. */
export function loggerOptions(level: string) {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.number', '*.securityCode', '*.bankAccountNumber', '*.apiPassword'],
      censor: '[redacted]',
    },
  };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    genReqId: () => randomUUID(),
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(errors);
  await app.register(openapi);
  await app.register(gateway, { eventStore: options.eventStore, merchants: options.merchants });
  await app.register(pay);
  await app.register(token);
  await app.register(admin, { password: options.adminPassword });
  return app;
}
