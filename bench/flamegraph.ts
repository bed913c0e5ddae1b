// A flame graph of a V8 .cpuprofile (node --cpu-prof) as a self-contained SVG: no script, no
// network. Each rectangle is a node of the call tree (a function called from the path below it),
// as wide as its total time (its own samples and its callees'), callers below, callees above,
// siblings left to right by time; the colour says the area (tokengate's own modules, node_modules,
// Node's internals, the rest). Hover a rectangle for function, file:line, ms and %.
//
//   node dist/bench/flamegraph.js <file.cpuprofile> [out.svg]   (default: the same name, .svg)
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaOf, selfTimes, shortUrl, type CpuProfile, type ProfileNode, type Window } from './profile.js';

export interface FlameGraphOptions {
  /** Count only the samples inside this window (all of them if none falls inside). */
  window?: Window;
  /** Heading of the graph (default: 'CPU profile'). */
  title?: string;
  /** Width in px (default 1200). */
  width?: number;
  /** Nodes narrower than this fraction of the total are left out, with their callees (default 0.001). */
  minFraction?: number;
}

const ROW = 17;
const PAD = 10;
const HEADER = 44;
const CHAR = 6.6; // width of a character of 11px monospace, about

export const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) =>
  c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;');

type Kind = 'tokengate' | 'node_modules' | 'node' | 'other';
const COLOURS: Record<Kind, { hue: number; sat: number; label: string }> = {
  tokengate: { hue: 22, sat: 85, label: 'tokengate (dist/)' },
  node_modules: { hue: 200, sat: 60, label: 'node_modules' },
  node: { hue: 120, sat: 40, label: 'node internals' },
  other: { hue: 0, sat: 0, label: 'native, GC, idle, other' },
};

function kindOf(node: ProfileNode): Kind {
  const { functionName, url } = node.callFrame;
  if (url.includes('/node_modules/')) return 'node_modules';
  const area = areaOf(functionName, url);
  if (area.startsWith('tokengate ')) return 'tokengate';
  if (area === 'node core' || url.startsWith('node:')) return 'node';
  return 'other';
}

/** A colour of the node's area, its lightness varying with the name so neighbours stand apart. */
function colourOf(node: ProfileNode): string {
  const { hue, sat } = COLOURS[kindOf(node)];
  let hash = 0;
  for (const c of node.callFrame.functionName) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return `hsl(${hue + (hash % 16) - 8},${sat}%,${58 + (hash % 17)}%)`;
}

const fixed = (n: number) => String(Math.round(n * 100) / 100);

/** The flame graph of `profile` as an SVG document. */
export function flameGraphSvg(profile: CpuProfile, options: FlameGraphOptions = {}): string {
  const width = options.width ?? 1200;
  const minFraction = options.minFraction ?? 0.001;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const { selfUs, windowed } = selfTimes(profile, options.window);
  // The root: the node no other node lists as a child (V8's "(root)", the first node).
  const childIds = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  const root = profile.nodes.find((n) => !childIds.has(n.id));
  const totalUs = new Map<number, number>();
  const total = (node: ProfileNode): number => {
    let us = selfUs.get(node.id) ?? 0;
    for (const id of node.children ?? []) {
      const child = byId.get(id);
      if (child) us += total(child);
    }
    totalUs.set(node.id, us);
    return us;
  };
  const allUs = root ? total(root) : 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) if (byId.get(id)?.callFrame.functionName === '(idle)') idleUs += us;

  const scale = allUs > 0 ? (width - 2 * PAD) / allUs : 0;
  const rects: { node: ProfileNode; x: number; w: number; depth: number; us: number }[] = [];
  let maxDepth = 0;
  const place = (node: ProfileNode, x: number, depth: number) => {
    const us = totalUs.get(node.id) ?? 0;
    if (us <= 0 || us < allUs * minFraction) return;
    rects.push({ node, x, w: us * scale, depth, us });
    maxDepth = Math.max(maxDepth, depth);
    const children = (node.children ?? []).flatMap((id) => byId.get(id) ?? [])
      .sort((a, b) => (totalUs.get(b.id) ?? 0) - (totalUs.get(a.id) ?? 0));
    let cx = x;
    for (const child of children) {
      place(child, cx, depth + 1);
      cx += (totalUs.get(child.id) ?? 0) * scale;
    }
  };
  if (root) place(root, PAD, 0);

  const height = HEADER + (maxDepth + 1) * ROW + PAD;
  const ms = (us: number) => (us / 1000).toLocaleString('en', { maximumFractionDigits: 1 });
  const heading = `${options.title ?? 'CPU profile'} — ${windowed ? 'samples of the measured window' : 'whole profile'}: ` +
    `${ms(allUs)} ms, busy ${allUs > 0 ? ((100 * (allUs - idleUs)) / allUs).toFixed(1) : 0}%; width = total time, callees above callers`;
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="monospace" font-size="11">`,
    '<style>rect{stroke:#fff;stroke-width:0.5}g:hover rect{stroke:#000;stroke-width:1}text{pointer-events:none}</style>',
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#fafafa" stroke="none"/>`,
    `<text x="${PAD}" y="16" font-size="13">${escapeXml(heading)}</text>`,
  ];
  let lx = PAD;
  for (const { hue, sat, label } of Object.values(COLOURS)) {
    out.push(`<rect x="${fixed(lx)}" y="24" width="12" height="12" fill="hsl(${hue},${sat}%,65%)"/><text x="${fixed(lx + 16)}" y="34">${escapeXml(label)}</text>`);
    lx += 16 + label.length * CHAR + 16;
  }
  for (const { node, x, w, depth, us } of rects) {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = node === root ? 'all' : functionName || '(anonymous)';
    const where = url ? ` ${shortUrl(url)}:${lineNumber + 1}` : '';
    const percent = allUs > 0 ? (100 * us) / allUs : 0;
    const title = `${name}${where} — ${ms(us)} ms, ${percent < 1 ? fixed(percent) : percent.toFixed(1)}%`;
    const y = HEADER + (maxDepth - depth) * ROW;
    const chars = Math.floor((w - 6) / CHAR);
    const label = chars < 3 ? '' : name.length <= chars ? name : `${name.slice(0, chars - 2)}..`;
    out.push(`<g><title>${escapeXml(title)}</title><rect x="${fixed(x)}" y="${y}" width="${fixed(w)}" height="${ROW - 1}" fill="${colourOf(node)}"/>` +
      (label ? `<text x="${fixed(x + 3)}" y="${y + ROW - 5}">${escapeXml(label)}</text>` : '') + '</g>');
  }
  out.push('</svg>', '');
  return out.join('\n');
}

/** Writes the flame graph of a .cpuprofile file to `svgFile` (default: its name with .svg); returns the path. */
export function writeFlameGraph(cpuprofileFile: string, svgFile?: string, options: FlameGraphOptions = {}): string {
  const profile = JSON.parse(readFileSync(cpuprofileFile, 'utf8')) as CpuProfile;
  const out = svgFile ?? `${cpuprofileFile.replace(/\.cpuprofile$/, '')}.svg`;
  writeFileSync(out, flameGraphSvg(profile, { title: basename(cpuprofileFile), ...options }));
  return out;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const [file, svg] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node dist/bench/flamegraph.js <file.cpuprofile> [out.svg]\n');
    process.exitCode = 2;
  } else {
    process.stdout.write(`${writeFlameGraph(file, svg)}\n`);
  }
}
