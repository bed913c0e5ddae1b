// Create Session and Update Session, API version 100 (the real gateway's session operations, so
// that session.id and session.version of Create or Update Token mean something).
import { Type, type Static } from '@sinclair/typebox';
import { Opt, Pattern, Str, Strict, StringEnum } from './common.js';
import { MerchantIdParam } from './pay.js';

const Ascii = (min: number, max: number) => Pattern(min, max, '^[\\x20-\\x7e]*$', 'ASCII text');
const Digits = (min: number, max: number) => Pattern(min, max, `^[0-9]{${min},${max}}$`, min === max ? `exactly ${min} digits` : `${min} to ${max} digits`);

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
      card: Opt(Strict({
        expiry: Opt(Strict({
          month: Pattern(1, 2, '^(0?[1-9]|1[0-2])$', 'a month 1-12'),
          year: Digits(2, 2),
        })),
        nameOnCard: Opt(Str(1, 256)),
        number: Opt(Digits(9, 19)),
        securityCode: Opt(Digits(3, 4)),
      })),
    })),
  })),
});

export type CreateSessionBody = Static<typeof CreateSessionBody>;
export type SessionBody = Static<typeof SessionBody>;
