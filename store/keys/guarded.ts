// A key store whose writes note the storage faults they meet: the gateway turns SHUTDOWN while
// one lasts (a full disk: until a write succeeds again), as it does for the event store's.
import { StorageFault } from '../../domain/errors.js';
import { asStorageFault } from '../storage-fault.js';
import type { KeyStore } from './key-store.js';

export interface GuardedKeys {
  readonly keys: KeyStore;
  /** The storage fault of the last key write that met one, or of the store's own failure (undefined: none). */
  fault(): StorageFault | undefined;
}

export function guardKeys(keys: KeyStore): GuardedKeys {
  let keyFault: StorageFault | undefined;
  const guarded = <T>(write: () => T): T => {
    try {
      const result = write();
      if (keyFault?.heals) keyFault = undefined;
      return result;
    } catch (error) {
      const fault = asStorageFault(error, 'the key store') ??
        (error === keys.failure ? new StorageFault((error as Error).message, 'EIO', false, { cause: error }) : undefined);
      if (fault === undefined) throw error;
      if (keyFault === undefined || keyFault.heals) {
        if (keyFault === undefined) process.emitWarning(fault.message);
        keyFault = fault;
      }
      throw fault;
    }
  };
  const flush = keys.flush?.bind(keys);
  const newKey = keys.newKey?.bind(keys);
  const forget = keys.forget?.bind(keys);
  const held = keys.held?.bind(keys);
  return {
    keys: {
      get: (keyId) => keys.get(keyId),
      put: (keyId, key) => guarded(() => keys.put(keyId, key)),
      ...(flush ? { flush: () => guarded(flush) } : {}),
      ...(newKey ? { newKey: () => guarded(newKey) } : {}),
      destroy: (keyId) => guarded(() => keys.destroy(keyId)),
      ...(held ? { held } : {}),
      ...(forget ? { forget: () => guarded(forget) } : {}),
      reservation: (accountHash) => keys.reservation(accountHash),
      reserve: (accountHash, reservationId) => guarded(() => keys.reserve(accountHash, reservationId)),
      release: (accountHash, reservationId) => guarded(() => keys.release(accountHash, reservationId)),
      shreddedThrough: () => keys.shreddedThrough(),
      setShreddedThrough: (position) => guarded(() => keys.setShreddedThrough(position)),
      fresh: keys.fresh,
      get failure() { return keys.failure; },
      close: () => keys.close(),
    },
    fault: () => keyFault ?? (keys.failure ? new StorageFault(keys.failure.message, 'EIO', false, { cause: keys.failure }) : undefined),
  };
}
