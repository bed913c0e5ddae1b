// The fitness checks: rules about the shape of the product's sources that no type checker or
// behaviour test holds, read with the TypeScript compiler's parser (no type checking, so a whole
// tree takes well under a second). `checkTree(root)` lists every violation under a directory laid
// out like the repository; the fitness test runs it over the repository and over the fixture trees
// in test/fitness/fixtures/, each of which holds one violation, so every rule is shown to fire.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const MAX_FILE_LINES = 300;
export const MAX_FUNCTION_LINES = 60;

export type Rule =
  | 'file-lines'
  | 'function-lines'
  | 'import-cycle'
  | 'layers'
  | 'store-cache-outside-store'
  | 'conflict-caught-outside-handler';

export interface Violation {
  readonly rule: Rule;
  /** Path relative to the tree's root, with forward slashes. */
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** Folders that are not product code: their files may be long and import anything. */
const NOT_PRODUCT = new Set(['test', 'bench', 'scripts', 'examples', 'node_modules', 'dist', 'docs', 'deploy', 'config']);
/** Files whose length counts: code, including the pages served from web/. */
const CODE = /\.(ts|mts|cts|js|mjs|cjs|html)$/;
const SOURCE = /\.(ts|mts|cts)$/;

/** Folders above the domain: the domain decides, pure, and imports none of them. */
const ABOVE_DOMAIN = new Set(['services', 'store', 'projections', 'routes', 'plugins', 'bin', '.']);
/** Packages the domain must not import: the web framework and the database drivers. */
const INFRASTRUCTURE_PACKAGE = /^(fastify|fastify-plugin|@fastify\/.*|pg|pg-.*|better-sqlite3|@kurrent\/.*)$/;
/** The store implements a port below the services; the read models sit on top of it. */
const ABOVE_STORE = new Set(['projections', 'services', 'routes', 'plugins', 'bin']);
/** Folders that speak HTTP: they go through the services, never to the store directly. */
const HTTP_LAYERS = new Set(['routes', 'plugins']);

/** Identifiers only the store may know: the adapters' caches are theirs to use. */
const STORE_CACHE_NAMES = new Set(['cachedRevision', 'cachedStream']);
/** The errors of an append refused as a conflict (promises 1 and 8): the command handler retries them. */
const CONFLICT_ERRORS = new Set(['WrongExpectedRevisionError', 'ConditionFailedError']);
/** Where an append conflict may be handled: the command handler retries, the store raises it. */
const CONFLICT_HOMES = (file: string): boolean => file === 'services/command-handler.ts' || file.startsWith('store/');

/** The product's code files under root, relative with forward slashes, sorted. */
export function productFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join('/');
      if (entry.isDirectory()) {
        if (!(dir === root && NOT_PRODUCT.has(entry.name))) walk(path);
      } else if (CODE.test(entry.name)) {
        found.push(rel);
      }
    }
  };
  walk(root);
  return found.sort();
}

/** The top folder of a product file ('.' for a file at the root). */
function layerOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? '.' : file.slice(0, slash);
}

interface Import {
  readonly specifier: string;
  readonly line: number;
  /** The imported product file (relative to the root), when the specifier is a relative path to one. */
  readonly target: string | undefined;
}

function lineOf(source: ts.SourceFile, node: ts.Node): number {
  return source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
}

/** A relative specifier's file: './x.js' is compiled from './x.ts'. */
function resolve(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const joined = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [joined, joined.replace(/\.(m|c)?js$/, '.$1ts'), `${joined}.ts`, `${joined}/index.ts`];
  return candidates.find((candidate) => existsSync(join(root, candidate)) && statSync(join(root, candidate)).isFile()) ?? joined;
}

/** Static imports, re-exports, `import x = require()` and dynamic `import('...')` with a literal. */
function importsOf(root: string, file: string, source: ts.SourceFile): Import[] {
  const found: Import[] = [];
  const add = (literal: ts.Expression | undefined, node: ts.Node): void => {
    if (literal === undefined || !ts.isStringLiteralLike(literal)) return;
    found.push({ specifier: literal.text, line: lineOf(source, node), target: resolve(root, file, literal.text) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier, node);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression, node);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The layer rule an import breaks, if any. */
function layerBreach(file: string, imported: Import): string | undefined {
  const from = layerOf(file);
  if (imported.target === undefined) {
    const name = packageName(imported.specifier.replace(/^node:/, ''));
    if (from === 'domain' && !builtinModules.includes(name) && INFRASTRUCTURE_PACKAGE.test(name)) {
      return `the domain imports the infrastructure package '${name}'`;
    }
    return undefined;
  }
  const to = layerOf(imported.target);
  if (to === from) return undefined;
  if (from === 'domain' && ABOVE_DOMAIN.has(to)) return `the domain imports ${imported.target}, a layer above it`;
  if (from === 'store' && ABOVE_STORE.has(to)) return `the store imports ${imported.target}, a layer above it`;
  if (HTTP_LAYERS.has(from) && to === 'store') return `${from}/ imports the store (${imported.target}); go through the services`;
  return undefined;
}

function functionName(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name !== undefined && (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name))) return named.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isCallExpression(parent)) return `a function passed to ${parent.expression.getText().slice(0, 40)}`;
  return 'an anonymous function';
}

function longFunctions(file: string, source: ts.SourceFile): Violation[] {
  const found: Violation[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body !== undefined) {
      const first = lineOf(source, node);
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) {
        found.push({
          rule: 'function-lines',
          file,
          line: first,
          message: `${functionName(node)} is ${lines} lines (at most ${MAX_FUNCTION_LINES})`,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Identifiers (and property names) the file may not use, outside comments and strings. */
function forbiddenNames(file: string, source: ts.SourceFile): Violation[] {
  const found: Violation[] = [];
  const cacheAllowed = file.startsWith('store/');
  const conflictAllowed = CONFLICT_HOMES(file);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      const name = node.text;
      if (!cacheAllowed && STORE_CACHE_NAMES.has(name)) {
        found.push({ rule: 'store-cache-outside-store', file, line: lineOf(source, node), message: `${name} is the store's cache, used outside store/` });
      } else if (!conflictAllowed && CONFLICT_ERRORS.has(name)) {
        found.push({
          rule: 'conflict-caught-outside-handler',
          file,
          line: lineOf(source, node),
          message: `${name} used outside services/command-handler.ts and store/: let handleCommand retry the conflict`,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every cycle of imports among the product's TypeScript files, each reported once, at its first file. */
function importCycles(graph: Map<string, Import[]>): Violation[] {
  const found: Violation[] = [];
  const seen = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const imported of graph.get(file) ?? []) {
      const target = imported.target;
      if (target === undefined || !graph.has(target)) continue;
      if (state.get(target) === 'open') {
        const cycle = path.slice(path.indexOf(target));
        const key = [...cycle].sort().join(' ');
        if (!seen.has(key)) {
          seen.add(key);
          found.push({ rule: 'import-cycle', file, line: imported.line, message: `import cycle: ${[...cycle, target].join(' → ')}` });
        }
      } else if (!state.has(target)) {
        visit(target);
      }
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

/** Every violation of the rules in the product files under root. */
export function checkTree(root: string): Violation[] {
  const violations: Violation[] = [];
  const graph = new Map<string, Import[]>();
  for (const file of productFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) {
      violations.push({ rule: 'file-lines', file, line: 1, message: `${lines} lines (at most ${MAX_FILE_LINES}): split it by job` });
    }
    if (!SOURCE.test(file)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const imports = importsOf(root, file, source);
    graph.set(file, imports);
    for (const imported of imports) {
      const breach = layerBreach(file, imported);
      if (breach !== undefined) violations.push({ rule: 'layers', file, line: imported.line, message: breach });
    }
    violations.push(...longFunctions(file, source), ...forbiddenNames(file, source));
  }
  violations.push(...importCycles(graph));
  // One report per line and rule (a line may name a cache twice).
  const seen = new Set<string>();
  return violations.filter((violation) => {
    const key = format(violation);
    return !seen.has(key) && seen.add(key) !== undefined;
  });
}

/** One line per violation: `file:line rule: message`. */
export function format(violation: Violation): string {
  return `${violation.file}:${violation.line} ${violation.rule}: ${violation.message}`;
}

export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
