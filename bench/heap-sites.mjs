// The allocations of a sampling heap profile (bench/inject-pay.mjs's INJECT_PAY_HEAP), summed per
// allocating function (self) and per call path, in bytes per pay:
//
//   node bench/heap-sites.mjs /tmp/pay.heapprofile <pays> [--top 30] [--depth 8]
//
// Each sample counts its object's size: summed, they come within a few % of the bytes the child
// measures exactly (from the heap's statistics around each collection), which weighting the
// samples by the sampler's interval does not.
// A call path is the allocating function and its callers, `--depth` frames of them, innermost first.
import { readFileSync } from 'node:fs';

const [file, paysText, ...rest] = process.argv.slice(2);
const option = (name, fallback) => (rest.includes(name) ? Number(rest[rest.indexOf(name) + 1]) : fallback);
const top = option('--top', 30);
const depth = option('--depth', 8);
const pays = Number(paysText);
const profile = JSON.parse(readFileSync(file, 'utf8'));

const frame = ({ functionName, url, lineNumber }) =>
  `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\//, '')}:${lineNumber + 1}`;
const paths = new Map();
const walk = (node, stack) => {
  const here = [frame(node.callFrame), ...stack];
  paths.set(node.id, here);
  for (const child of node.children) walk(child, here);
};
walk(profile.head, []);

const self = new Map();
const byPath = new Map();
let total = 0;
for (const { size, nodeId } of profile.samples) {
  const bytes = size;
  total += bytes;
  const stack = paths.get(nodeId) ?? ["(unknown)"];
  self.set(stack[0], (self.get(stack[0]) ?? 0) + bytes);
  const key = stack.slice(0, depth).join(' < ');
  byPath.set(key, (byPath.get(key) ?? 0) + bytes);
}
const show = (title, map) => {
  console.log(`\n${title}`);
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(bytes / pays).toFixed(0).padStart(7)}  ${key}`);
};
console.log(`${(total / pays / 1024).toFixed(1)} KB per pay, ${profile.samples.length} samples`);
show('bytes per pay, by allocating function', self);
show(`bytes per pay, by call path (${depth} frames)`, byPath);
