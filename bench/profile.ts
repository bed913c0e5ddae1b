// Summary of a V8 .cpuprofile (node --cpu-prof): self time aggregated by function name + script,
// and by area (tokengate's own modules, each package of node_modules, Node's internals, GC, idle).
import { readFileSync } from 'node:fs';
import { round } from './lib.js';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
export interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples?: number[]; timeDeltas?: number[] }

export interface ProfileEntry { name: string; where: string; selfMs: number; percent: number }
export interface ProfileSummary {
  file: string;
  /** Whether only the samples of the measured window were counted. */
  windowed: boolean;
  totalMs: number;
  /** Share of the time not idle: the process was busy this fraction of the time. */
  busyPercent: number;
  top: ProfileEntry[];
  areas: ProfileEntry[];
}

/** Where a script lives, shortened: `dist/services/payments.js`, `fastify/lib/route.js`, `node:internal/...`. */
export function shortUrl(url: string): string {
  if (url === '') return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + '/node_modules/'.length);
  const dist = path.lastIndexOf('/dist/');
  if (dist >= 0) return path.slice(dist + 1);
  return path;
}

/** The area of a script: tokengate's folder (dist/<folder>), the npm package, node internals. */
export function areaOf(name: string, url: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native, called from JS)';
  const short = shortUrl(url);
  if (url.includes('/node_modules/')) {
    const parts = short.split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0] ?? short;
  }
  if (short.startsWith('dist/')) {
    const parts = short.split('/');
    return parts.length > 2 ? `tokengate ${parts[1]}/` : `tokengate ${parts[1]}`;
  }
  if (short.startsWith('node:')) return 'node core';
  return short;
}

/**
 * A span of the monotonic clock in microseconds (process.hrtime and V8's profile share it on
 * Linux); with `spans`, only the time inside them (a run cut into slices, other targets between).
 */
export interface Window { fromUs: number; toUs: number; spans?: readonly Window[] }

/** Whether a time falls inside the window (inside one of its spans, when it has them). */
export const inWindow = (window: Window, timeUs: number): boolean =>
  window.spans ? window.spans.some((span) => timeUs >= span.fromUs && timeUs <= span.toUs) : timeUs >= window.fromUs && timeUs <= window.toUs;

export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time of each node (µs by node id). With `window`, only the samples taken inside it count;
 * when no sample falls inside (another clock), the whole profile (`windowed` false). With
 * `maxSampleUs`, no sample weighs more than that (a thread not scheduled for a while leaves one
 * sample followed by a long gap: wall time, not CPU).
 */
export function selfTimes(profile: CpuProfile, window?: Window, maxSampleUs = Infinity): { selfUs: Map<number, number>; windowed: boolean } {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const collect = (inside: (timeUs: number) => boolean) => {
    const self = new Map<number, number>();
    let time = profile.startTime;
    // timeDeltas[i] is the time before sample i; the time of sample i is the next delta.
    for (let i = 0; i < samples.length; i++) {
      time += deltas[i] ?? 0;
      if (!inside(time)) continue;
      const id = samples[i] ?? 0;
      self.set(id, (self.get(id) ?? 0) + Math.min(maxSampleUs, Math.max(0, deltas[i + 1] ?? 0)));
    }
    return self;
  };
  const selfUs = window ? collect((t) => inWindow(window, t)) : new Map<number, number>();
  return selfUs.size > 0 ? { selfUs, windowed: true } : { selfUs: collect(() => true), windowed: false };
}

/**
 * Self time by function and by area. With `window`, only the samples taken inside it count (the
 * measured phase of a scenario); when no sample falls inside (another clock), the whole profile.
 */
export function summarizeProfile(file: string, window?: Window, topCount = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const { selfUs, windowed } = selfTimes(profile, window);
  const byFunction = new Map<string, ProfileEntry>();
  const byArea = new Map<string, ProfileEntry>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    total += us;
    if (name === '(idle)') idle += us;
    const key = `${name}\u0000${where}`;
    const entry = byFunction.get(key) ?? { name, where, selfMs: 0, percent: 0 };
    entry.selfMs += us / 1000;
    byFunction.set(key, entry);
    const area = areaOf(name, url);
    const a = byArea.get(area) ?? { name: area, where: '', selfMs: 0, percent: 0 };
    a.selfMs += us / 1000;
    byArea.set(area, a);
  }
  const finish = (entries: Iterable<ProfileEntry>, count: number) => [...entries]
    .sort((x, y) => y.selfMs - x.selfMs)
    .slice(0, count)
    .map((e) => ({ ...e, selfMs: round(e.selfMs, 1), percent: total > 0 ? round((100 * e.selfMs * 1000) / total, 1) : 0 }));
  return {
    file,
    windowed,
    totalMs: round(total / 1000, 0),
    busyPercent: total > 0 ? round((100 * (total - idle)) / total, 1) : 0,
    top: finish(byFunction.values(), topCount),
    areas: finish(byArea.values(), 15),
  };
}
