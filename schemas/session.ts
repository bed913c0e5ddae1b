// Create Session and Update Session, API version 100 (the real gateway's session operations, so
// that session.id and session.version of Create or Update Token mean something).
import { Type, type Static } from '@sinclair/typebox';
import { Ascii, Opt, Str, Strict, StringEnum } from './common.js';
import { ProvidedCard } from './token.js';
import { MerchantIdParam } from './pay.js';


export const SessionParams = Strict({ merchantId: MerchantIdParam });
export const SessionIdParams = Strict({ merchantId: MerchantIdParam, sessionId: Ascii(31, 35) });

export const CreateSessionBody = Strict({
  correlationId: Opt(Str(1, 100)),
  session: Opt(Strict({ authenticationLimit: Opt(Type.Integer({ minimum: 1, maximum: 25, description: 'an integer 1-25' })) })),
});

/** Update Session: the card fields a later token request may take from the session. */
export const SessionBody = Strict({
  correlationId: Opt(Str(1, 100)),
  sourceOfFunds: Opt(Strict({
    type: Opt(StringEnum(['CARD'] as const)),
    provided: Opt(Strict({
      card: Opt(ProvidedCard()),
    })),
  })),
});

export type CreateSessionBody = Static<typeof CreateSessionBody>;
export type SessionBody = Static<typeof SessionBody>;
