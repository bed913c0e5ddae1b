// The flame graph of a small hand-made .cpuprofile: widths proportional to time, callees stacked
// one row above their caller inside its x-range, titles and labels, XML escaping, the window filter.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { flameGraphSvg, writeFlameGraph } from '../../bench/flamegraph.js';
import type { CpuProfile } from '../../bench/profile.js';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });
const START = 1_000_000;
// (root) → main → `<anonymous> & co` (tokengate's dist/lib/json.js); (root) → handler (fastify).
// Samples every 1 ms; sample i weighs the delta after it (the last one weighs nothing):
// main self 2 ms, `<anonymous> & co` 4 ms, handler 2 ms: 8 ms in all.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 4] },
    { id: 2, callFrame: frame('main', 'file:///work/main/dist/server.js', 9), children: [3] },
    { id: 3, callFrame: frame('<anonymous> & co', 'file:///work/main/dist/lib/json.js', 41) },
    { id: 4, callFrame: frame('handler', 'file:///work/main/node_modules/fastify/lib/route.js', 99) },
  ],
  startTime: START,
  endTime: START + 10_000,
  samples: [2, 2, 3, 3, 3, 3, 4, 4, 1],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

interface Box { title: string; x: number; y: number; width: number; label: string | undefined }
const boxes = (svg: string): Box[] => [...svg.matchAll(
  /<g><title>(.*?)<\/title><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"[^>]*\/>(?:<text[^>]*>(.*?)<\/text>)?<\/g>/g,
)].map((m) => ({ title: m[1] ?? '', x: Number(m[2]), y: Number(m[3]), width: Number(m[4]), label: m[5] }));
const find = (all: Box[], title: string) => {
  const box = all.find((b) => b.title.startsWith(title));
  if (!box) throw new Error(`no box titled ${title}`);
  return box;
};

t.test('rectangles as wide as the time, callees above their caller, titles, labels, escaping', async (t) => {
  const svg = flameGraphSvg(profile, { width: 820, title: 'test <profile>' });
  t.match(svg, /^<\?xml[^>]*\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  t.match(svg, /test &lt;profile&gt; — whole profile: 8 ms/, 'heading escaped, whole profile without a window');
  t.notMatch(svg, /<anonymous>|& co/, 'no raw < or & from the names');
  const all = boxes(svg);
  t.equal(all.length, 4, 'one rectangle per node');
  const root = find(all, 'all ');
  const main = find(all, 'main dist/server.js:10 ');
  const anon = find(all, '&lt;anonymous&gt; &amp; co dist/lib/json.js:42 ');
  const handler = find(all, 'handler fastify/lib/route.js:100 ');
  t.equal(root.width, 800, 'the root spans the width less the margins');
  t.equal(main.width, 600, 'main: 6 of 8 ms');
  t.equal(anon.width, 400, '<anonymous> & co: 4 of 8 ms');
  t.equal(handler.width, 200, 'handler: 2 of 8 ms');
  t.equal(main.x, root.x, 'the largest callee first');
  t.equal(handler.x, main.x + main.width, 'siblings side by side');
  for (const [child, parent] of [[main, root], [handler, root], [anon, main]] as const) {
    t.ok(child.x >= parent.x && child.x + child.width <= parent.x + parent.width, `${child.label} within its caller's x-range`);
    t.equal(parent.y - child.y, 17, `${child.label} one row above its caller`);
  }
  t.match(main.title, /— 6 ms, 75\.0%$/);
  t.match(anon.title, /— 4 ms, 50\.0%$/);
  t.match(handler.title, /— 2 ms, 25\.0%$/);
  t.same(all.map((b) => b.label), ['all', 'main', '&lt;anonymous&gt; &amp; co', 'handler'], 'labels on wide rectangles');
  t.match(svg, /tokengate \(dist\/\)/, 'legend');
  t.not(/fill="(hsl[^"]*)"/.exec(svg.slice(svg.indexOf('<title>main')))?.[1]?.split(',')[0],
    /fill="(hsl[^"]*)"/.exec(svg.slice(svg.indexOf('<title>handler')))?.[1]?.split(',')[0], 'tokengate and node_modules coloured apart');

  const narrow = boxes(flameGraphSvg(profile, { width: 60 }));
  t.equal(find(narrow, 'handler').label, undefined, 'no label where the rectangle is too narrow');
  t.same(boxes(flameGraphSvg(profile, { minFraction: 0.3 })).map((b) => b.label), ['all', 'main', '&lt;anonymous&gt; &amp; co'],
    'nodes under the minimum fraction left out');
});

t.test('with a window only the samples inside it count', async (t) => {
  // Sample i is taken at START + (i + 1) ms: the window holds samples 2..5, all in `<anonymous> & co`.
  const svg = flameGraphSvg(profile, { width: 820, window: { fromUs: START + 3000, toUs: START + 6000 } });
  t.match(svg, /samples of the measured window: 4 ms/);
  const all = boxes(svg);
  t.same(all.map((b) => b.title.split(' ')[0]), ['all', 'main', '&lt;anonymous&gt;'], 'handler has no sample inside');
  t.equal(find(all, 'main').width, 800);
  t.equal(find(all, '&lt;anonymous&gt;').width, 800);
  t.match(find(all, '&lt;anonymous&gt;').title, /— 4 ms, 100\.0%$/);
  const outside = flameGraphSvg(profile, { window: { fromUs: 0, toUs: 10 } });
  t.match(outside, /whole profile: 8 ms/, 'no sample inside: the whole profile');
});

t.test('writeFlameGraph writes <name>.svg next to the .cpuprofile', async (t) => {
  const dir = t.testdir({});
  const file = join(dir, 'run.cpuprofile');
  writeFileSync(file, JSON.stringify(profile));
  const svg = writeFlameGraph(file);
  t.equal(svg, join(dir, 'run.svg'));
  t.ok(existsSync(svg));
  t.match(readFileSync(svg, 'utf8'), /run\.cpuprofile — whole profile/);
});
