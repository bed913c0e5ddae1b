// Module hooks that run the tests' TypeScript (test/helpers/ts-loader.mjs registers them; the
// "tap" section of package.json loads that for every test process). Each .ts file is transpiled
// by swc with the options ts-node gave it ("ts-node": { "swc": true }), source maps inline; an
// import of './x.js' from our code loads './x.ts' when there is one (NodeNext's convention, as
// tsc and ts-node resolve it). Type-checking is tsc's (npm run typecheck, npm run build).
//
// Why not tap's own loader (@tapjs/typescript, ts-node): ts-node cost each test process ≈ 0.7 s
// of CPU more than swc called directly (registering itself, then resolving every import in
// JavaScript), about 90 of the suite's 690 CPU-seconds.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';

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
    const { code } = transformSync(readFileSync(filename, 'utf8'), { ...SWC_OPTIONS, filename });
    return { format: 'module', source: code, shortCircuit: true };
  }
  return nextLoad(url, context);
}
