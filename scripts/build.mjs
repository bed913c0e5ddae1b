#!/usr/bin/env node
// `npm run build`: tsc, then a stamp in dist/ that names what it compiled: every TypeScript file
// that tsconfig.json's `include` takes, tsconfig.json, package.json and package-lock.json, each by
// path, size and modification time. With `--if-stale` (npm start's prestart) it compiles only when
// that list differs from the stamp's (a source edited, added, removed or checked out; a dependency
// changed) or dist/server.js is missing. Checking costs a few stat calls; a tsc that finds nothing
// to do costs seconds, even with --incremental. Plain JavaScript: it runs before anything is built.
// Other arguments go to tsc (and then no stamp is written).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.build-stamp');
const OTHER_INPUTS = ['tsconfig.json', 'package.json', 'package-lock.json'];

function typescriptFiles(dir, recursive, found) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recursive) typescriptFiles(path, true, found);
    } else if (entry.name.endsWith('.ts')) {
      found.push(path);
    }
  }
}

/** The files tsc compiles from, as tsconfig.json includes them; undefined for a pattern not read here (then: compile). */
function inputs() {
  const config = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  const found = [];
  for (const pattern of config.include ?? []) {
    if (pattern === '*.ts') typescriptFiles(root, false, found);
    else if (/^[\w.-]+\/\*\*\/\*\.ts$/.test(pattern)) typescriptFiles(join(root, pattern.slice(0, pattern.indexOf('/'))), true, found);
    else return undefined;
  }
  return [...found, ...OTHER_INPUTS.map((name) => join(root, name))].sort();
}

/** A digest of the inputs' paths, sizes and modification times; undefined: unknown, compile. */
function fingerprint() {
  const files = inputs();
  if (files === undefined) return undefined;
  const hash = createHash('sha256');
  for (const file of files) {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      continue;
    }
    hash.update(`${relative(root, file)}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const readStamp = () => {
  try {
    return readFileSync(stamp, 'utf8').trim();
  } catch {
    return undefined;
  }
};

const args = process.argv.slice(2);
const ifStale = args.includes('--if-stale');
const tscArgs = args.filter((arg) => arg !== '--if-stale');
// Taken before compiling: a source saved while tsc runs makes the next start compile again.
const current = fingerprint();
if (ifStale && current !== undefined && current === readStamp() && existsSync(join(root, 'dist', 'server.js'))) process.exit(0);
if (ifStale) process.stderr.write('tokengate: dist/ is missing or older than the sources: compiling (tsc)\n');

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), ...tscArgs], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  rmSync(stamp, { force: true });
  process.exit(result.status ?? 1);
}
if (current !== undefined && tscArgs.length === 0) writeFileSync(stamp, `${current}\n`);
