// Loaded into every test process (the "tap" section of package.json, "node-arg"), after tap's own
// --import of @tapjs/processinfo: the processes a test starts (the gateway, its workers, the
// command-line tool, the benchmark's servers) run as a user runs them, without tap's
// process-info hooks.
//
// tap's processinfo records which files each process loads, for coverage and `tap --changed`. It
// follows child processes by adding its --import to NODE_OPTIONS in every spawn (a listener of
// process-on-spawn). The suite has coverage off ("disable-coverage"), so in the children it only
// cost time: ≈ 0.85 s of CPU per child started (its module hooks on a thread of their own, its
// exit handlers, a JSON file written at exit), on several hundred children; and its signal-exit
// handlers sat in every child's SIGTERM and SIGINT path, which the shutdown tests are about.
//
// The test process itself keeps processinfo (tap's runner reads what it records).
const SPAWN_HOOKS = Symbol.for('process-on-spawn@*:singletonId');
const hooks = globalThis[SPAWN_HOOKS];
if (hooks && Array.isArray(hooks.listeners)) hooks.listeners.length = 0;

// And the NODE_OPTIONS this process was started with, which children inherit as they are.
if (process.env.NODE_OPTIONS) {
  const kept = process.env.NODE_OPTIONS.split(/\s+/).filter((option) => option !== '' && !option.includes('@tapjs/processinfo'));
  if (kept.length > 0) process.env.NODE_OPTIONS = kept.join(' ');
  else delete process.env.NODE_OPTIONS;
}
