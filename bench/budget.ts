// The cost budget of a request (issue 17, `npm run bench -- --budget`): the pay and create
// scenarios run with tokengate and the floor under --cpu-prof, and each sample of a scenario's
// measured window is given to a stage by the frame it was taken in; µs per 2xx response per stage.
//
// A frame's stage comes from its script (and, in bench/floor.mjs, its function), by the first rule
// of the table below that matches. A frame no rule names a stage for ("inherit": native calls such
// as SQLite's statements, Node's own modules other than HTTP, tokengate's lib/ helpers) takes the
// stage of its caller, up the stack: JSON.stringify's or SQLite's time counts for whoever called
// it. GC is a stage of its own ("gc"); idle time counts nowhere. A sample weighs the time to the
// next one, at most 3× the profile's median interval: on a busy machine a thread may not run for
// tens of ms, and that gap is wall time, not the CPU of the frame sampled before it. Every
// thread's profile counts (worker threads: the WAL checkpoints, "append"); the fdatasync on
// libuv's pool is not JavaScript and is in no profile (it is in the CPU time from /proc beside).
import { readFileSync } from 'node:fs';
import { round } from './lib.js';
import { selfTimes, shortUrl, type CpuProfile, type ProfileNode, type Window } from './profile.js';

export const STAGES = [
  'parse', 'auth', 'validation', 'token lookup', 'decide', 'event encoding', 'append', 'projection', 'response', 'other', 'gc',
] as const;
export type Stage = (typeof STAGES)[number];

/** A rule: frames whose short script path (profile.ts shortUrl) and function name match go to `stage`. */
export interface StageRule { url: RegExp; fn?: RegExp; stage: Stage | 'inherit' }

/** The frames of every server: packages and Node's modules. */
const COMMON: StageRule[] = [
  { url: /^@fastify\/basic-auth\//, stage: 'auth' },
  { url: /^(ajv|ajv-formats|fast-uri|@fastify\/ajv-compiler|fast-deep-equal|json-schema-traverse)\/|^fastify\/lib\/(validation|schemas)\.js$/, stage: 'validation' },
  { url: /^better-sqlite3\/|^\[worker eval\]$/, stage: 'append' },
  { url: /^fast-json-stringify\/|^fastify\/lib\/reply\.js$|^node:_http_outgoing$/, stage: 'response' },
  { url: /^(fastify|find-my-way|light-my-request|secure-json-parse|avvio)\/|^node:_http_(server|common|incoming)$/, stage: 'parse' },
  { url: /^node:|^\(native\)$/, stage: 'inherit' },
  { url: /./, stage: 'other' },
];

/** tokengate (dist/): its folders by job, then the common rules. */
export const TOKENGATE_RULES: StageRule[] = [
  { url: /^dist\/plugins\/auth(-credentials|-failures)?\.js$/, stage: 'auth' },
  // The body parsers (every route's, and the pay route's, which hands an identical repeat its parsed body).
  { url: /^dist\/plugins\/json-body\.js$/, stage: 'parse' },
  { url: /^dist\/routes\/pay\.js$/, fn: /^parse$/, stage: 'parse' },
  { url: /^dist\/schemas\//, stage: 'validation' },
  { url: /^dist\/services\/order\/pay-request\.js$/, stage: 'token lookup' },
  // New events: ids and metadata (services/context.ts), sealed card data and its keys.
  { url: /^dist\/(services\/context|lib\/uuid|store\/sealing)\.js$|^dist\/store\/keys\//, stage: 'event encoding' },
  { url: /^dist\/domain\//, stage: 'decide' },
  { url: /^dist\/store\//, stage: 'append' },
  { url: /^dist\/projections\//, stage: 'projection' },
  // The answer: the response builders of the services, the compiled serializers (plugins/openapi.ts).
  { url: /^dist\/plugins\/openapi\.js$|^dist\/services\/.*responses?\.js$/, stage: 'response' },
  { url: /^dist\/lib\//, stage: 'inherit' },
  { url: /^dist\//, stage: 'other' },
  ...COMMON,
];

/** bench/floor.mjs is one file: its functions by stage (keep them so when editing it), then the common rules. */
export const FLOOR_RULES: StageRule[] = [
  { url: /floor\.mjs$/, fn: /^(authenticate|authPay|authToken|sha256|unauthorized)$/, stage: 'auth' },
  { url: /floor\.mjs$/, fn: /^(findRecorded|remember)$/, stage: 'token lookup' },
  { url: /floor\.mjs$/, fn: /^(encodeEvent|sealCard|newToken)$/, stage: 'event encoding' },
  { url: /floor\.mjs$/, fn: /^(append|flush|insertEvent|writeBatch|durableTo|syncSoon|checkpointSoon|run)$/, stage: 'append' },
  { url: /floor\.mjs$/, fn: /^(answer|build|replay)$/, stage: 'response' },
  { url: /floor\.mjs$/, stage: 'other' },
  ...COMMON,
];

/** The stage of one frame: a stage, 'inherit' (its caller's), or undefined for idle time. */
export function stageOfFrame(callFrame: ProfileNode['callFrame'], rules: readonly StageRule[]): Stage | 'inherit' | undefined {
  const { functionName, url } = callFrame;
  if (url === '') {
    if (functionName === '(idle)') return undefined;
    if (functionName === '(garbage collector)') return 'gc';
    if (functionName === '(program)' || functionName === '(root)') return 'other';
  }
  const short = shortUrl(url);
  for (const rule of rules) {
    if (rule.url.test(short) && (rule.fn === undefined || rule.fn.test(functionName))) return rule.stage;
  }
  return 'other';
}

/** 3× the median interval between samples: the most one sample may weigh. */
export function sampleCap(profile: CpuProfile): number {
  const deltas = (profile.timeDeltas ?? []).filter((d) => d > 0).sort((a, b) => a - b);
  return deltas.length > 0 ? 3 * (deltas[Math.floor(deltas.length / 2)] ?? 0) : Infinity;
}

/** Self time (µs) of the samples inside `window`, by stage, walking up the stack from frames that inherit. */
export function stageTimes(profile: CpuProfile, rules: readonly StageRule[], window?: Window): Map<Stage, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const memo = new Map<number, Stage | undefined>();
  const stageOf = (id: number): Stage | undefined => {
    if (memo.has(id)) return memo.get(id);
    const node = byId.get(id);
    let stage: Stage | undefined = 'other';
    if (node) {
      const own = stageOfFrame(node.callFrame, rules);
      if (own === 'inherit') {
        const up = parent.get(id);
        stage = up === undefined ? 'other' : stageOf(up);
      } else {
        stage = own;
      }
    }
    memo.set(id, stage);
    return stage;
  };
  const times = new Map<Stage, number>();
  for (const [id, us] of selfTimes(profile, window, sampleCap(profile)).selfUs) {
    const stage = stageOf(id);
    if (stage !== undefined) times.set(stage, (times.get(stage) ?? 0) + us);
  }
  return times;
}

export interface BudgetRow {
  scenario: string;
  target: 'tokengate' | 'floor';
  /** 2xx responses of the run. */
  responses: number;
  /** What sampled the CPU: V8's profiler (--cpu-prof) or Linux perf (bench/perf.ts). */
  sampler: 'cpu-prof' | 'perf';
  /** µs of sampled CPU per response, by stage. */
  perStage: Record<Stage, number>;
  /** With perf: the same µs by what the CPU did (bench/perf.ts KINDS), whatever the stage. */
  perKind?: Record<string, number>;
  /**
   * The sum of the stages: with --cpu-prof the profiled JavaScript and native calls (not the kernel,
   * not the fdatasync on libuv's pool); with perf every thread's CPU, kernel included.
   */
  profiledUsPerRequest: number;
  /** The process's CPU (every thread, kernel included, /proc) per response in the same run. */
  cpuUsPerRequest: number | undefined;
}

/** One row of the budget: every profile of a process (its threads), samples inside `window`. */
export function budgetRow(
  files: readonly string[], rules: readonly StageRule[], window: Window,
  row: Pick<BudgetRow, 'scenario' | 'target' | 'responses' | 'cpuUsPerRequest'>,
): BudgetRow {
  const total = new Map<Stage, number>();
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    // A thread with no sample inside the window (a worker started later) adds nothing.
    if (!selfTimes(profile, window).windowed) continue;
    for (const [stage, us] of stageTimes(profile, rules, window)) total.set(stage, (total.get(stage) ?? 0) + us);
  }
  return rowOf(total, 'cpu-prof', row);
}

/** A row from µs of CPU by stage over the run (and, with perf, by kind: every kind of `kinds`). */
export function rowOf(
  total: ReadonlyMap<Stage, number>, sampler: BudgetRow['sampler'], row: Pick<BudgetRow, 'scenario' | 'target' | 'responses' | 'cpuUsPerRequest'>,
  kinds?: ReadonlyMap<string, number>,
): BudgetRow {
  const per = (us: number) => (row.responses > 0 ? round(us / row.responses, 1) : 0);
  const perStage = Object.fromEntries(STAGES.map((stage) => [stage, per(total.get(stage) ?? 0)])) as Record<Stage, number>;
  let sum = 0;
  for (const us of total.values()) sum += us;
  return {
    ...row, sampler, perStage, profiledUsPerRequest: per(sum),
    ...(kinds ? { perKind: Object.fromEntries([...kinds].map(([kind, us]) => [kind, per(us)])) } : {}),
  };
}
