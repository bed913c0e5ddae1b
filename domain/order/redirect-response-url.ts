// authentication.redirectResponseUrl: where the payer's browser is sent back to after 3-D Secure,
// sent to Authenticate Payer or held by a session for it. It becomes a form's action in the
// payer's browser, so only an http or https URL is taken.
import { InvalidRequest } from '../errors.js';

const FIELD = 'authentication.redirectResponseUrl';

/**
 * `text` as the URL a payer's browser will be sent to; refused (400 on `field`, saying it expected
 * `expected`) unless it parses as an http or https URL.
 */
export function browserUrl(text: string, field: string, expected: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidRequest(`Value is invalid. Expected ${expected}`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidRequest(`Value is invalid. Expected ${expected}`, field);
  return url.href;
}

/** The URL as the browser will post to it; refused (400 on the field) unless http or https. */
export const checkRedirectResponseUrl = (text: string): string => browserUrl(text, FIELD, 'an http or https URL');
