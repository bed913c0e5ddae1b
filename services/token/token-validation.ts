// What the schema's patterns cannot say about a token request: IP addresses, ISO 3166 country
// codes, ISO 4217 currencies. Each refusal a 400 naming the field.
import { isIP } from 'node:net';
import { isCountryAlpha3 } from '../../domain/countries.js';
import { InvalidRequest } from '../../domain/errors.js';
import { minorUnits } from '../../domain/money.js';
import type { TokenBody } from '../../schemas/token.js';

export function checkFormats(body: TokenBody): void {
  const ip = body.device?.ipAddress;
  if (ip !== undefined && isIP(ip) === 0) {
    throw new InvalidRequest(`Value '${ip}' is invalid. Expected an IPv4 address nnn.nnn.nnn.nnn or an IPv6 address`, 'device.ipAddress');
  }
  for (const [country, field] of [[body.billing?.address?.country, 'billing.address.country'], [body.shipping?.address?.country, 'shipping.address.country']] as const) {
    if (country !== undefined && !isCountryAlpha3(country)) {
      throw new InvalidRequest(`Value '${country}' is invalid. Expected an ISO 3166-1 alpha-3 country code`, field);
    }
  }
  const currency = body.transaction?.currency;
  if (currency !== undefined && minorUnits(currency) === undefined) {
    throw new InvalidRequest(`Value '${currency}' is invalid. Currency is not supported`, 'transaction.currency', 'UNSUPPORTED');
  }
}

/** Spec: street2 is merged into street in the response, truncated at 100 characters (code points). */
export function mergeStreet<T extends { address?: { street?: string; street2?: string } }>(group: T | undefined): T | undefined {
  const address = group?.address;
  if (!group || !address || address.street2 === undefined) return group;
  const { street2, ...rest } = address;
  const street = [...[address.street, street2].filter((s) => s !== undefined).join(' ')].slice(0, 100).join('');
  return { ...group, address: { ...rest, street } };
}
