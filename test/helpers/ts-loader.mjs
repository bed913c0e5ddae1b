// `node --import=./test/helpers/ts-loader.mjs file.ts`: runs a test file's TypeScript (see
// ts-hooks.mjs). The "tap" section of package.json passes it to every test process
// ("node-arg") and turns tap's ts-node loader off ("test-env": TAP_TYPE_STRIP_ONLY=1).
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
