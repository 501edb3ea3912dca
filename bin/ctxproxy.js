#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx compiles them on load, so there is
// no build step between `npm ci` and `npm start`.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// tsx reads tsconfig.json from the current folder by default; started inside a
// user's repository it would miss ours (the JSX runtime of the audit pages) or
// pick up theirs. Name the package's own file.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
