/**
 * Preloaded into a server under test (`NODE_OPTIONS=--import=./test/support/loaded-packages.mjs`):
 * when the process exits it writes the paths of the CommonJS modules it loaded (every npm
 * package the service uses resolves to CommonJS) to `LOADED_MODULES_FILE`, so a test can
 * tell which packages a code path pulled in.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const file = process.env.LOADED_MODULES_FILE;
const cache = createRequire(import.meta.url).cache;
if (file) process.on('exit', () => writeFileSync(file, JSON.stringify(Object.keys(cache))));
