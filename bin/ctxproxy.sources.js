#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx compiles them on load (`npm run dev`,
// and the tests). Imported by bin/ctxproxy.js when there is no dist/, it only
// exports main; run as a script, it runs it.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// tsx reads tsconfig.json from the current folder by default; started inside a
// user's repository it would miss ours (the JSX runtime of the audit pages) or
// pick up theirs. Name the package's own file.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
export const { main } = await import('../src/main.ts');

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
