#!/usr/bin/env node
// Runs the compiled package: dist/, which `npm ci` builds through the `prepare`
// script (`npm run build`). A checkout without dist/ (installed with
// --ignore-scripts, or dist/ deleted) runs the TypeScript sources through tsx
// instead, as bin/ctxproxy.sources.js always does (`npm run dev`).
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/main.js', import.meta.url);
const { main } = existsSync(compiled)
  ? await import(compiled.href)
  : await import(new URL('./ctxproxy.sources.js', import.meta.url).href);
process.exitCode = await main(process.argv.slice(2));
