// The events of the test-control API (docs/timeline-and-cli.md, "Test control"): what a test did
// to a merchant's sandbox, each named by what happened. MerchantReset and SandboxClockAdvanced
// are the merchant's sandbox stream (streams.sandbox); UnknownResolvedByTest is appended to the
// order stream with the PaymentOutcomeResolved it caused, NotificationRedeliveryRequested to the
// notification's stream before the attempt it asks for, NotificationRequestedByTest first in a new
// notification's stream. Every one names the merchant, the owner of its stream.

/**
 * The merchant's data was reset: every event of its orders, sessions, transaction references and
 * notifications (and of its repository's tokens, when `repositoryId` is given) recorded before this
 * one is ignored by every read from now on; the events stay in the log (a new epoch, not a wipe).
 */
export interface MerchantReset {
  type: 'MerchantReset';
  data: {
    merchantId: string;
    /** The merchant's resets so far, this one included (1, 2, ...). */
    reset: number;
    /** The token repository reset with it: absent when another merchant shares it (its tokens are that merchant's too). */
    repositoryId?: string;
    /** The merchants sharing the repository, when it was not reset for that reason. */
    repositorySharedWith?: string[];
    /** The merchant's sandbox time of the reset. */
    resetAt: string;
  };
}

/** The merchant's sandbox clock was moved forward: its time is the real time plus `offsetMs` from now on. */
export interface SandboxClockAdvanced {
  type: 'SandboxClockAdvanced';
  data: {
    merchantId: string;
    /** How far it was moved. */
    advancedByMs: number;
    /** The clock's whole lead over the real time after this advance. */
    offsetMs: number;
    /** The merchant's sandbox time before and after the advance. */
    from: string;
    to: string;
  };
}

/** A test chose the final outcome of a transaction answered UNKNOWN (its PaymentOutcomeResolved follows in the same append). */
export interface UnknownResolvedByTest {
  type: 'UnknownResolvedByTest';
  data: { merchantId: string; orderId: string; transactionId: string; gatewayCode: string; requestedAt: string };
}

/** A test asked for a notification to be sent again now (its NotificationAttempted, trigger REDELIVERY, follows). */
export interface NotificationRedeliveryRequested {
  type: 'NotificationRedeliveryRequested';
  data: { merchantId: string; notificationId: string; orderId: string; transactionId: string; requestedAt: string };
}

/**
 * A test asked for a notification of a transaction as it stands now: the first event of a
 * notification stream of its own (a fresh id), its NotificationScheduled follows in the same append.
 */
export interface NotificationRequestedByTest {
  type: 'NotificationRequestedByTest';
  data: { merchantId: string; notificationId: string; orderId: string; transactionId: string; requestedAt: string };
}

export type SandboxEvent = MerchantReset | SandboxClockAdvanced;
export type TestControlEvent = SandboxEvent | UnknownResolvedByTest | NotificationRedeliveryRequested | NotificationRequestedByTest;
export const SANDBOX_EVENT_TYPES: ReadonlySet<string> = new Set<SandboxEvent['type']>(['MerchantReset', 'SandboxClockAdvanced']);
