// The event store contract against the in-memory adapter.
import t from 'tap';
import { MemoryEventStore } from '../../store/memory.js';
import { eventStoreContract } from './contract.js';

eventStoreContract(t, async () => ({ store: new MemoryEventStore() }));
