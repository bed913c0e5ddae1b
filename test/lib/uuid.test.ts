// Event ids: UUIDv7, time first, so new ids sort after older ones (the event-id index grows at its end).
import t from 'tap';
import { uuidV7 } from '../../lib/uuid.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

t.test('a UUIDv7: version 7, RFC variant, the time in its first 48 bits', async (t) => {
  const at = Date.UTC(2026, 10, 22, 2, 0, 0, 123);
  const id = uuidV7(at);
  t.match(id, V7);
  t.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), at, 'the millisecond it was made');
  const ids = new Set(Array.from({ length: 10_000 }, () => uuidV7(at)));
  t.equal(ids.size, 10_000, '74 random bits: no repeats within one millisecond');
  t.ok([...ids].every((other) => V7.test(other)), 'every one a v7 UUID');
});

t.test('ids of a later millisecond sort after those of an earlier one', async (t) => {
  const earlier = Array.from({ length: 100 }, () => uuidV7(1_700_000_000_000));
  const later = Array.from({ length: 100 }, () => uuidV7(1_700_000_000_001));
  t.ok(earlier.every((a) => later.every((b) => a < b)));
  t.ok(uuidV7() > uuidV7(Date.now() - 1000), 'now after a second ago');
});

t.test('every random digit varies over all 16 values, the variant over 8 to b', async (t) => {
  const ids = Array.from({ length: 4000 }, () => uuidV7(1_700_000_000_000));
  const randomAt = [15, 16, 17, 20, 21, 22, ...Array.from({ length: 12 }, (_, i) => 24 + i)];
  for (const at of randomAt) t.equal(new Set(ids.map((id) => id[at])).size, 16, `digit ${at}`);
  t.same([...new Set(ids.map((id) => id[19]))].sort(), ['8', '9', 'a', 'b'], 'the variant');
});
