// Loaded into every test process (the "tap" section of package.json, "node-arg"), after tap's own
// --import of @tapjs/processinfo: the processes a test starts (the gateway, its workers, the
// command-line tool, the benchmark's servers) run as a user runs them, without tap's
// process-info hooks.
//
// tap's processinfo records which files each process loads, for coverage and `tap --changed`. It
// follows child processes by adding its --import to NODE_OPTIONS in every spawn (a listener of
// process-on-spawn). The suite has coverage off ("disable-coverage"), so in the children it only
// cost time: a gateway started in 2.4 s of CPU with it, 1.4 s without; `tokengate --help` 1.3 s,
// 0.45 s (its module hooks on a thread of their own, its exit handlers, a JSON file written at
// exit); and its signal-exit handlers sat in every child's SIGTERM and SIGINT path, which the
// shutdown tests are about.
//
// The test process itself keeps processinfo, as tap starts it.
import { createRequire } from 'node:module';

// processinfo's listener, removed through process-on-spawn's own API (the copy processinfo uses).
createRequire(import.meta.resolve('@tapjs/processinfo'))('process-on-spawn').removeAllListeners();

// And the NODE_OPTIONS this process was started with, which children inherit as they are.
if (process.env.NODE_OPTIONS) {
  const kept = process.env.NODE_OPTIONS.split(/\s+/).filter((option) => option !== '' && !option.includes('@tapjs/processinfo'));
  if (kept.length > 0) process.env.NODE_OPTIONS = kept.join(' ');
  else delete process.env.NODE_OPTIONS;
}
