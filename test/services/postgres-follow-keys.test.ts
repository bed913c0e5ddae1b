// What an instance on PostgreSQL asks of the key store for the events it follows (its own and the
// others'): the token shredder records its checkpoint every few thousand events on every instance,
// and that write is posted to the key store's worker, not waited for: following the log stops
// neither instance's event loop on a key statement. Against a real server; skipped loudly without one.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { eventually } from '../helpers/poll.js';
import { postgresForFile, rowsOf } from '../helpers/postgres.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { PostgresKeyStore } from '../../store/postgres/key-store.js';
import { SyncPgClient } from '../../store/postgres/sync-client.js';

const server = postgresForFile(t);
/** More than the shredder's checkpoint interval (services/token/token-shredding.ts). */
const EVENTS = 10_500;

if (server) {
  t.test('two gateways follow 10,500 events of one: the shredder checkpoints on both, with no synchronous key statement', async (t) => {
    const { url, a, b } = await twoGateways(t, server, 'follow_keys');
    await a.gateway.tokenShredder.settled();
    await b.gateway.tokenShredder.settled();
    const start = await a.gateway.store.headPosition();

    const waited: string[] = [];
    const run = SyncPgClient.prototype.run;
    SyncPgClient.prototype.run = function spy(this: SyncPgClient, ...statements) {
      waited.push(statements.map((s) => s.text).join('; '));
      return run.apply(this, statements);
    } as typeof run;
    const checkpointed = new Map<PostgresKeyStore, bigint>();
    const set = PostgresKeyStore.prototype.setShreddedThrough;
    PostgresKeyStore.prototype.setShreddedThrough = function spy(this: PostgresKeyStore, position: bigint) {
      checkpointed.set(this, position);
      set.call(this, position);
    };
    t.teardown(() => {
      SyncPgClient.prototype.run = run;
      PostgresKeyStore.prototype.setShreddedThrough = set;
    });

    // Events no reactor acts on, in batches: only the shredder's checkpoint concerns the key store.
    for (let i = 0; i < EVENTS / 500; i++) {
      await a.gateway.store.append(`noise-${i}`, Array.from({ length: 500 }, (_, n) => ({
        id: randomUUID(), type: 'NoiseRecorded', data: { n }, metadata: { correlationId: 'follow-keys', recordedAt: new Date().toISOString() },
      })));
    }
    const end = start + BigInt(EVENTS);
    await eventually(() => checkpointed.size === 2 && [...checkpointed.values()].every((p) => p >= start + 10_000n), { intervalMs: 20 });
    t.equal(checkpointed.size, 2, 'both instances record the shredder\'s checkpoint');
    for (const position of checkpointed.values()) t.ok(position >= start + 10_000n && position <= end, `checkpoint ${position} past the events followed`);
    t.same(waited, [], 'no synchronous key statement while following');

    const stored = await eventually(async () => BigInt((await rowsOf<{ value: string }>(url, "SELECT value FROM key_store_meta WHERE name = 'shredded-through'"))[0]?.value ?? '0'),
      { until: (p) => p >= start + 10_000n, intervalMs: 20 });
    t.ok(stored >= start + 10_000n, `the checkpoint is stored (${stored})`);
    t.equal(b.gateway.sealer.shreddedThrough(), stored, 'and read back by the key store');
  });
}
