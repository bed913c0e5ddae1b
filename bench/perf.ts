// The cost budget from Linux perf (`npm run bench -- --budget`, when perf can record here): each
// server runs with --perf-basic-prof (V8 names its compiled JavaScript in /tmp/perf-<pid>.map),
// `perf record` samples every thread of it on the CPU clock, kernel included, and each sample of a
// run's window is given to a stage by the first frame of its stack, from the leaf up, that has a
// stage of its own (bench/budget.ts's rules; a native frame — SQLite, JSON.stringify, a system
// call — counts for the JavaScript that called it).
//
// Why not V8's own profiler alone: on this 2-core VM its samples are taken late when the machine is
// busy, and a sample weighs the time to the next one, so a function right before a system call
// takes the call's time (the compiled response serializer weighed 16 µs per pay there, 4 µs timed
// with hrtime and in perf), and the kernel's side (socket writes, fdatasync on libuv's pool) is in
// no V8 profile at all. perf's samples are CPU time: their sum is the process's CPU.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stageOfFrame, STAGES, type Stage, type StageRule } from './budget.js';
import { inWindow, type Window } from './profile.js';

/** Samples per second of CPU, per thread. */
export const PERF_HZ = 499;
/** `perf record`'s options: call stacks, on the monotonic clock the runs' windows are measured in. */
const RECORD = ['record', '-q', '-F', String(PERF_HZ), '-g', '-k', 'CLOCK_MONOTONIC'];

/** Where a process run with --perf-basic-prof writes the names of its compiled code. */
export const perfMapFile = (pid: number) => join('/tmp', `perf-${pid}.map`);

/** Whether `perf record` works here (installed, and allowed to sample: perf_event_paranoid). */
export function perfUsable(): boolean {
  const probe = join(tmpdir(), `tokengate-perf-probe-${process.pid}.data`);
  try {
    const run = spawnSync('perf', [...RECORD, '-o', probe, '--', 'true'], { stdio: 'ignore', timeout: 15_000 });
    return run.status === 0;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

export interface PerfRecording { file: string; pid: number; stop(): Promise<void> }

/** `perf record` of every thread of `pid` into `file` until stop() (SIGINT: perf writes the file and exits). */
export function recordPerf(pid: number, file: string): PerfRecording {
  const child = spawn('perf', [...RECORD, '-p', String(pid), '-o', file], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  return {
    file,
    pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A compiled JavaScript frame as perf names it from V8's map: `JS:*name url:line:column` (name and url may be empty). */
const JS_FRAME = /^JS:[*~^+-]?(.*?) ?(\S*):\d+:\d+$/;
/** Frames of the garbage collector, on the main thread or V8's helper threads: the sample is GC wherever it was called from. */
const GC = /Heap::CollectGarbage|Heap::PerformGarbageCollection|Scavenger|ScavengeJob|MarkCompactCollector|MinorMarkCompact|ConcurrentMarking|IncrementalMarking|Sweeper::|MemoryAllocator::Unmapper/;

/**
 * The stage of one sample, its frames leaf first (perf script's symbols): GC anywhere in the stack;
 * else the first JavaScript frame with a stage of its own; else, a stack without one (a thread of
 * libuv's pool, Node's C++ reading a socket), by what the native frames do.
 */
export function stageOfStack(frames: readonly string[], rules: readonly StageRule[]): Stage {
  if (frames.some((f) => GC.test(f))) return 'gc';
  for (const frame of frames) {
    const js = JS_FRAME.exec(frame);
    if (!js) continue;
    const [, functionName = '', url = ''] = js;
    // Code compiled from text at start (no script): Ajv's validators, fast-json-stringify's
    // serializers. V8's profiles find their stage from their caller's frame; in perf that frame is
    // often gone (inlined into its own caller), so they are named here.
    if (url === '' && /^validate\d*$/.test(functionName)) return 'validation';
    if (url === '' && /^(anonymous\d+|main)$/.test(functionName)) return 'response';
    const stage = stageOfFrame({ functionName, url, lineNumber: 0, columnNumber: 0 }, rules);
    if (stage !== 'inherit' && stage !== undefined) return stage;
  }
  const all = frames.join('\n');
  // The WAL's fdatasync on libuv's pool (both servers), a worker thread's checkpoint.
  if (/fdatasync|uv__fs_work|node::worker::/.test(all)) return 'append';
  if (/llhttp|Parser::|OnStreamRead|uv__read/.test(all)) return 'parse';
  if (/Writev|StreamBase::Write|uv__write|uv_try_write/.test(all)) return 'response';
  return 'other';
}

/**
 * What the CPU did, whatever it was for: a second view of the same samples that inlining cannot
 * blur (a stage is read from the JavaScript frames perf sees, and a function the JIT inlined into
 * another counts for that one: the floor's encodeEvent inside its handler is "other" there).
 */
export const KINDS = ['own JavaScript', 'packages and Node (JavaScript)', 'compiled schemas (Ajv, fast-json-stringify)', 'SQLite', 'JSON.parse, JSON.stringify', 'hashing', 'kernel', 'gc', 'other native'] as const;
export type Kind = (typeof KINDS)[number];

/** The kind of one sample (frames leaf first): the native work below its first JavaScript frame, or whose JavaScript that frame is. */
export function kindOfStack(frames: readonly string[]): Kind {
  if (frames.some((f) => GC.test(f))) return 'gc';
  const firstJs = frames.findIndex((f) => JS_FRAME.test(f));
  const native = (firstJs < 0 ? frames : frames.slice(0, firstJs)).join('\n');
  // SQLite before the kernel: its WAL writes are SQLite's.
  if (/sqlite3|Statement::JS_/.test(native)) return 'SQLite';
  if (/Builtin_Json(Stringify|Parse)|JsonStringifier|JsonParser/.test(native)) return 'JSON.parse, JSON.stringify';
  if (/node::crypto::|EVP_|SHA256_|sha256_block|HMAC_/.test(native)) return 'hashing';
  if (/entry_SYSCALL|do_syscall_64|__x64_sys_|asm_exc_page_fault/.test(native)) return 'kernel';
  if (firstJs < 0) return 'other native';
  const url = JS_FRAME.exec(frames[firstJs] ?? '')?.[2] ?? '';
  if (url === '') return 'compiled schemas (Ajv, fast-json-stringify)';
  if (url.includes('/node_modules/') || url.startsWith('node:')) return 'packages and Node (JavaScript)';
  return 'own JavaScript';
}

/** µs of CPU in a window, by stage and by kind. */
export interface PerfTimes { stages: Map<Stage, number>; kinds: Map<Kind, number> }

/**
 * µs of CPU by stage in each of `windows` (monotonic µs, as the runs measured them), from the text
 * `perf script -F tid,time,ip,sym` writes: a header line per sample (thread, time in seconds), then
 * its frames, leaf first, then a blank line. Each sample weighs 1/PERF_HZ s.
 */
export async function stageTimesFromScript(lines: AsyncIterable<string> | Iterable<string>, rules: readonly StageRule[], windows: readonly Window[]): Promise<PerfTimes[]> {
  const times = windows.map((): PerfTimes => ({ stages: new Map(STAGES.map((s) => [s, 0])), kinds: new Map(KINDS.map((k) => [k, 0])) }));
  const weight = 1e6 / PERF_HZ;
  let at: number | undefined;
  let frames: string[] = [];
  const flush = () => {
    if (at !== undefined && frames.length > 0) {
      const time = at;
      const into = times[windows.findIndex((w) => inWindow(w, time))];
      if (into) {
        const stage = stageOfStack(frames, rules);
        into.stages.set(stage, (into.stages.get(stage) ?? 0) + weight);
        const kind = kindOfStack(frames);
        into.kinds.set(kind, (into.kinds.get(kind) ?? 0) + weight);
      }
    }
    at = undefined;
    frames = [];
  };
  for await (const line of lines) {
    if (line.trim() === '') { flush(); continue; }
    const header = /^\s*\d+\s+(\d+)\.(\d+):/.exec(line);
    if (header) {
      flush();
      at = Number(header[1]) * 1e6 + Number((header[2] ?? '0').padEnd(6, '0').slice(0, 6));
      continue;
    }
    const frame = /^\s+[0-9a-f]+ (.*)$/.exec(line);
    if (frame) frames.push(frame[1] ?? '');
  }
  flush();
  return times;
}

/**
 * stageTimesFromScript of a recording (`perf script` read as it writes: a recording of a whole
 * run is hundreds of MB of text). The map files V8 wrote for `pids` are removed afterwards.
 */
export async function perfStageTimes(file: string, rules: readonly StageRule[], windows: readonly Window[], pids: readonly number[] = []): Promise<PerfTimes[]> {
  const script = spawn('perf', ['script', '-i', file, '-F', 'tid,time,ip,sym'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const done = new Promise<number | null>((resolve, reject) => {
    script.once('error', reject);
    script.once('close', (code) => resolve(code));
  });
  try {
    const times = await stageTimesFromScript(createInterface({ input: script.stdout }), rules, windows);
    const code = await done;
    if (code !== 0) throw new Error(`bench: perf script -i ${file} exited with ${code}`);
    return times;
  } finally {
    for (const pid of pids) rmSync(perfMapFile(pid), { force: true });
  }
}
