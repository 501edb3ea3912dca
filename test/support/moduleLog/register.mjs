// `node --import ./register.mjs`: writes every module the process loads to the file
// named by CTXPROXY_TEST_MODULE_LOG, one URL or path a line. ES modules are seen by a
// load hook (which runs on its own thread in Node 20, hence the file); CommonJS ones
// (better-sqlite3 through createRequire, packages required by packages) are read from
// the shared require cache when the process exits.

import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.CTXPROXY_TEST_MODULE_LOG;
if (file) {
  register('./hooks.mjs', import.meta.url, { data: { file } });
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    appendFileSync(
      file,
      Object.keys(cache)
        .map((name) => `${name}\n`)
        .join(''),
    );
  });
}
