// A scenario cut into slices (bench/http.ts): how many, and slices of one server merged into one
// run — counts summed, the latency percentiles of every response of every slice, CPU per response.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { fireSlice, mergeSlices, sliceCount } from '../../bench/http.js';

t.test('slices: as many as asked, none shorter than a second, at least one', async (t) => {
  t.equal(sliceCount(10, 5), 5);
  t.equal(sliceCount(2, 5), 2, '2 s: two slices of 1 s');
  t.equal(sliceCount(1, 5), 1);
  t.equal(sliceCount(0.5, 5), 1, 'shorter than a second: one slice');
  t.equal(sliceCount(10, 1), 1);
});

t.test('slices of one server merge into one run', async (t) => {
  // Every third answer is a 503; the first slice answers at once, the second after 20 ms.
  let delay = 0;
  let n = 0;
  const server = createServer((_req, res) => {
    n += 1;
    const status = n % 3 === 0 ? 503 : 200;
    setTimeout(() => { res.writeHead(status).end('x'); }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;
  const requests = [{ method: 'GET' as const, path: '/' }];
  const fast = await fireSlice(port, requests, 1, 2, process.pid);
  delay = 20;
  const slow = await fireSlice(port, requests, 1, 2, process.pid);
  const merged = mergeSlices([fast, slow], 2);
  const raw = (s: typeof fast) => s.raw as unknown as { totalCompletedRequests: number; '2xx': number; non2xx: number; duration: number };
  const ok = raw(fast)['2xx'] + raw(slow)['2xx'];
  t.equal(merged.requests, raw(fast).totalCompletedRequests + raw(slow).totalCompletedRequests, 'responses summed');
  t.equal(merged.durationSec, Math.round((raw(fast).duration + raw(slow).duration) * 100) / 100, 'durations summed');
  t.equal(merged.rps, Math.round((ok / (raw(fast).duration + raw(slow).duration)) * 10) / 10, '2xx per second over both');
  t.equal(merged.non2xx, raw(fast).non2xx + raw(slow).non2xx);
  t.equal((merged.statusCodes['200'] ?? 0) + (merged.statusCodes['503'] ?? 0), merged.requests, 'status codes of both');
  t.ok(merged.latencyMs.max >= 20, 'the slow slice\'s latencies are in the merged histogram');
  // Which slice the percentiles come from follows from the counts, not from how fast this machine is.
  const fastCount = raw(fast).totalCompletedRequests;
  const slowCount = raw(slow).totalCompletedRequests;
  const fastMax = mergeSlices([fast], 2).latencyMs.max;
  if (fastCount > slowCount) t.ok(merged.latencyMs.p50 <= fastMax, `more than half the responses are the fast slice's: the median is one of them (${JSON.stringify(merged.latencyMs)}, fast max ${fastMax})`);
  if (slowCount > 0.02 * (fastCount + slowCount)) t.ok(merged.latencyMs.p99 >= 20, `over 2% of the responses are the slow slice's (${slowCount} of ${fastCount + slowCount}): p99 is one of them (${JSON.stringify(merged.latencyMs)})`);
  t.ok(merged.cpuUsPerRequest !== undefined && merged.cpuUsPerRequest > 0, 'the server\'s CPU per response');
  t.ok(merged.loadGenUsPerRequest !== undefined && merged.loadGenUsPerRequest > 0, 'the load generator\'s');
});
