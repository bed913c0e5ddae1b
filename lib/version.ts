// tokengate's version, from package.json: Check Gateway's gatewayVersion, `tokengate --version`
// and the /metrics build info all say the same.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../config.js';

export const VERSION: string = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
