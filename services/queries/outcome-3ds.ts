// What a step of 3-D Secure did, in the gateway's words (services/queries/outcome.ts describes
// the other events): "INITIATE_AUTHENTICATION · 512345xxxxxx0008 MASTERCARD 01/39 →
// AUTHENTICATION_AVAILABLE", "AUTHENTICATE_PAYER 99.00 USD → AUTHENTICATION_PENDING
// (challenge)", "Challenge answered → AUTHENTICATION_SUCCESSFUL (Y)". An authentication failed or
// rejected is red (the payment that names it is refused or declined), a challenge still open amber.
import { type Data, type Describe, fundsOf, money, obj, type Outcome, str, type Tone, transactionOf } from './outcome-parts.js';

const FAILED = new Set(['AUTHENTICATION_FAILED', 'AUTHENTICATION_REJECTED']);

function toneOf(status: string): Tone {
  if (FAILED.has(status)) return 'failed';
  return status === 'AUTHENTICATION_PENDING' ? 'pending' : 'ok';
}

/** "AUTHENTICATION_SUCCESSFUL (Y, ECI 02)", "AUTHENTICATION_PENDING (challenge)": the status and the ACS's answer. */
function status(d: Data): { words: string; tone: Tone } {
  const outcome = obj(d.outcome);
  const code = str(outcome.authenticationStatus);
  const details: string[] = [];
  if (outcome.transactionStatus === 'C') details.push('challenge');
  else if (outcome.transactionStatus) details.push(str(outcome.transactionStatus));
  if (outcome.statusReasonCode) details.push(`reason ${str(outcome.statusReasonCode)}`);
  if (outcome.challengeCancel) details.push(`cancelled ${str(outcome.challengeCancel)}`);
  if (outcome.eci) details.push(`ECI ${str(outcome.eci)}`);
  return { words: `${code}${details.length ? ` (${details.join(', ')})` : ''}`, tone: toneOf(code) };
}

function step(summary: string, d: Data): Outcome {
  const { words, tone } = status(d);
  const transaction = transactionOf(d);
  return { summary: `${summary} → ${words}`, tone, ...(transaction ? { transaction } : {}) };
}

const initiated: Describe = (d) => {
  const version = d.version === 'NONE' ? ' · no 3-D Secure for this card' : '';
  return step(`INITIATE_AUTHENTICATION · ${fundsOf(obj(d.source))}${version}`, d);
};

const payer: Describe = (d) => step(`AUTHENTICATE_PAYER ${money(d.amount, d.currency)}`, d);

const challenge: Describe = (d) => step(`Challenge answered${d.byCode ? ' with a code' : `: ${str(d.answer)}`}`, d);

/**
 * A payment that named an authentication and recorded no rule of its own (refused by the gateway
 * on that authentication: AUTHENTICATION_FAILED): the authentication as the payment found it.
 */
export function authenticationRule(d: Data): string | undefined {
  const authentication = obj(d.authentication);
  if (!authentication.outcome) return undefined;
  return `the authentication ${str(authentication.transactionId)}: ${status(authentication).words}`;
}

export const AUTHENTICATION_DESCRIBE: Record<string, Describe> = {
  AuthenticationInitiated: initiated,
  PayerAuthenticationStarted: payer,
  PayerAuthenticated: payer,
  ChallengeAnswered: challenge,
};
