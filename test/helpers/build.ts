// The compiled gateway the tests run as a user runs it (the end-to-end tests, the CLI tests, the
// benchmark driver, the crash test): the folder `npm test` / `npm run test:long` compiled for this
// run alone (TOKENGATE_DIST, scripts/test.mjs), which an `npm start` or `npm run build` in the
// same checkout never rewrites; dist/ when a file is run on its own with `npx tap` (build it first:
// `npm run build`), or `npm run test:long -- test/e2e/restart.test.ts` for a build of its own.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BUILD = process.env.TOKENGATE_DIST ?? fileURLToPath(new URL('../../dist/', import.meta.url));
/** The server (`npm start` runs it). */
export const SERVER = join(BUILD, 'server.js');
/** The command-line tool (`tokengate`). */
export const BIN = join(BUILD, 'bin', 'tokengate.js');
/** A module of the build, as a file: URL for import(). */
export const builtModule = (path: string): string => pathToFileURL(join(BUILD, path)).href;
