// Module hooks that run the tests' TypeScript (test/helpers/ts-loader.mjs registers them; the
// "tap" section of package.json loads that for every test process). Each .ts file is transpiled
// by swc with the options ts-node gave it ("ts-node": { "swc": true }), source maps inline; an
// import of './x.js' from our code loads './x.ts' when there is one (NodeNext's convention, as
// tsc and ts-node resolve it). Type-checking is tsc's (npm run typecheck, npm run build).
//
// Why not tap's own loader (@tapjs/typescript, ts-node): ts-node cost each test process ≈ 0.7 s
// of CPU more than swc called directly (registering itself, then resolving every import in
// JavaScript), about 90 of the suite's 690 CPU-seconds.
//
// Transpiled files are kept in node_modules/.cache/tokengate-tests/, named by a hash of the source,
// its path, swc's version and the options: each test process transpiled the ≈ 130 files of the
// app again (≈ 0.2 s of CPU); a changed file has another name, so nothing stale is ever read.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const SWC_VERSION = require('@swc/core/package.json').version;
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/tokengate-tests/', import.meta.url));

const SWC_OPTIONS = {
  swcrc: false,
  sourceMaps: 'inline',
  module: { type: 'es6', strictMode: true, noInterop: false, ignoreDynamic: false },
  jsc: {
    parser: { syntax: 'typescript', tsx: false, decorators: false, dynamicImport: true, importAssertions: true },
    target: 'es2022',
    keepClassNames: true,
  },
};

const OPTIONS_KEY = JSON.stringify([SWC_VERSION, SWC_OPTIONS]);
let swc; // @swc/core, loaded at the first file not in the cache

function transpiled(filename) {
  const source = readFileSync(filename, 'utf8');
  const key = createHash('sha256').update(OPTIONS_KEY).update('\0').update(filename).update('\0').update(source).digest('hex');
  const cached = `${CACHE}${key}.js`;
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    // not transpiled yet
  }
  swc ??= require('@swc/core');
  const { code } = swc.transformSync(source, { ...SWC_OPTIONS, filename });
  try {
    // Written under a name of its own, then renamed: a process reading the file sees all of it.
    mkdirSync(CACHE, { recursive: true });
    const partial = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
  } catch {
    // a cache that cannot be written only costs time
  }
  return code;
}

const relative = (specifier) => specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('/') || specifier.startsWith('file:');

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (parent?.startsWith('file:') && !parent.includes('/node_modules/') && relative(specifier) && /\.[cm]?js$/.test(specifier)) {
    const url = new URL(specifier, parent);
    if (url.protocol === 'file:' && !url.pathname.includes('/node_modules/')) {
      const ts = new URL(url.href.replace(/js$/, 'ts'));
      if (existsSync(fileURLToPath(ts))) return { url: ts.href, format: 'module', shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && /\.[cm]?ts$/.test(url) && !url.includes('/node_modules/')) {
    const filename = fileURLToPath(url);
    if (url.endsWith('.cts')) throw new Error(`${filename}: CommonJS TypeScript is not supported by test/helpers/ts-hooks.mjs`);
    return { format: 'module', source: transpiled(filename), shortCircuit: true };
  }
  // Every other module as Node's own load would give it (a built-in, an ES module's bytes, a
  // CommonJS module left to require()), without passing it down the chain of tap's module hooks:
  // @tapjs/mock's answers only its tapmock: URLs (no test mocks a module), and @tapjs/processinfo
  // records the files a process loads for coverage, which is off. Each of those hooks was a round
  // trip to the main thread for each of the ≈ 350 modules a test process loads.
  if (url.startsWith('node:')) return { format: 'builtin', source: null, shortCircuit: true };
  if (url.startsWith('file:') && context.format === 'module') return { format: 'module', source: readFileSync(fileURLToPath(url)), shortCircuit: true };
  if (url.startsWith('file:') && context.format === 'commonjs') return { format: 'commonjs', source: null, shortCircuit: true };
  return nextLoad(url, context);
}
