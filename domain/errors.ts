// Refusals the domain can decide; plugins/errors.ts renders them as the gateway's error body.

export type ValidationType = 'INVALID' | 'MISSING' | 'UNSUPPORTED';

/** error.cause INVALID_REQUEST: the request breaks the API protocol (HTTP 400). */
export class InvalidRequest extends Error {
  readonly field: string | undefined;
  readonly validationType: ValidationType | undefined;
  constructor(explanation: string, field?: string, validationType?: ValidationType) {
    super(explanation);
    this.name = 'InvalidRequest';
    this.field = field;
    this.validationType = field === undefined ? undefined : (validationType ?? 'INVALID');
  }
}
