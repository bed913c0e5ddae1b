// The paths and bodies of session.js and its frames (routes/hosted-session.ts).
import { Type, type Static } from '@sinclair/typebox';
import { Ascii, Opt, Pattern, Str, Strict, StringEnum } from './common.js';
import { MerchantIdParam, VersionParam } from './pay.js';

/** The hosted card fields, as session.js's configuration names them (fields.card.*). */
export const HOSTED_ROLES = ['number', 'expiryMonth', 'expiryYear', 'securityCode', 'nameOnCard'] as const;

export const FormParams = Strict({ version: VersionParam, merchantId: MerchantIdParam });
export const FieldParams = Strict({ version: VersionParam, merchantId: MerchantIdParam, role: StringEnum(HOSTED_ROLES, 'a hosted field role') });
export const FormSessionParams = Strict({ version: VersionParam, merchantId: MerchantIdParam, sessionId: Ascii(31, 35) });

/** The frames' query: the page's channel (32 hexadecimal characters drawn by session.js). */
export const FrameQuery = Type.Object({ channel: Pattern(32, 32, '^[0-9a-f]{32}$', '32 hexadecimal characters') }, { additionalProperties: false });

/**
 * What the controller frame sends: each configured field's value as typed (empty when left
 * empty). Wide bounds: the values are checked as fields (domain/session/hosted-fields.ts), a bad
 * one is a field in error, not a refused request.
 */
export const FormSessionBody = Strict({
  paymentType: Opt(StringEnum(['card'] as const)),
  card: Strict({
    number: Opt(Str(0, 64)),
    expiryMonth: Opt(Str(0, 8)),
    expiryYear: Opt(Str(0, 8)),
    securityCode: Opt(Str(0, 16)),
    nameOnCard: Opt(Str(0, 512)),
  }),
});

export type FormSessionBody = Static<typeof FormSessionBody>;
