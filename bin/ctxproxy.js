#!/usr/bin/env -S node --max-semi-space-size=2
// --max-semi-space-size: V8's young generation grows to 2 × 16 MB under a stream of short-lived
// chunks and keeps it; 2 MB semi-spaces give most of that back to the model at a small CPU cost
// (bench/chunks/README.md). `npm start` passes the same flag; `node bin/ctxproxy.js` runs without it.
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
