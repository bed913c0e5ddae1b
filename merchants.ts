// Merchant profiles from MERCHANTS_FILE (shape: ../shared/guide/architecture.md, run contract).
import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from './config.js';

const Repository = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 16, pattern: '^[\\x21-\\x7e]+$' }),
  tokenGeneration: Type.Union([Type.Literal('RANDOM'), Type.Literal('PRESERVE_6_4'), Type.Literal('MERCHANT_SUPPLIED')]),
  tokenManagement: Type.Union([Type.Literal('UNIQUE_TOKEN'), Type.Literal('UNIQUE_CARD'), Type.Literal('UNIQUE_ACCOUNT_IDENTIFIER')]),
  schemeTokenization: Type.Boolean({ default: false }),
  schemeTokenProvisioningMode: Type.Union(
    [Type.Literal('ASYNCHRONOUS'), Type.Literal('ATTEMPT_SYNCHRONOUS'), Type.Literal('SYNCHRONOUS')],
    { default: 'ASYNCHRONOUS' },
  ),
});

const Merchant = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 40, pattern: '^[0-9A-Za-z_-]+$' }),
  apiPassword: Type.String({ minLength: 32 }),
  repository: Repository,
});

const MerchantsFile = Type.Object({ merchants: Type.Array(Merchant, { minItems: 1 }) });

export type MerchantProfile = Static<typeof Merchant>;
export type RepositorySettings = Static<typeof Repository>;

export class Merchants {
  private readonly byId: Map<string, MerchantProfile>;
  constructor(readonly list: readonly MerchantProfile[]) {
    this.byId = new Map(list.map((m) => [m.id, m]));
  }
  get(id: string): MerchantProfile | undefined {
    return this.byId.get(id);
  }
}

/** Parse and check a merchants document; throws ConfigError naming the first problem. */
export function parseMerchants(json: unknown, source: string): Merchants {
  const withDefaults = Value.Default(MerchantsFile, Value.Clone(json));
  const firstError = Value.Errors(MerchantsFile, withDefaults).First();
  if (firstError) {
    throw new ConfigError(`${source}: ${firstError.path || '/'}: ${firstError.message}`);
  }
  const file = withDefaults as Static<typeof MerchantsFile>;
  const seen = new Set<string>();
  for (const m of file.merchants) {
    if (seen.has(m.id)) throw new ConfigError(`${source}: merchant '${m.id}' is listed twice`);
    seen.add(m.id);
    // Spec: "a repository id starting with 'Test' supplied by the caller is rejected".
    if (m.repository.id.startsWith('Test')) {
      throw new ConfigError(`${source}: merchant '${m.id}': repository id must not start with 'Test' (reserved for test twins)`);
    }
  }
  return new Merchants(file.merchants);
}

export function loadMerchants(path: string): Merchants {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`MERCHANTS_FILE '${path}' cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`MERCHANTS_FILE '${path}' is not valid JSON: ${(error as Error).message}`);
  }
  return parseMerchants(json, path);
}
