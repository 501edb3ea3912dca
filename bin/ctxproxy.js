#!/usr/bin/env -S node --max-semi-space-size=2 --v8-pool-size=1 --heap-growing-percent=50
// Memory for the model beside it (bench/chunks/README.md): --max-semi-space-size, because V8 grows
// its young generation to 2 × 16 MB under a stream of short-lived chunks and keeps it;
// --v8-pool-size=1, one V8 background thread (GC, compilation) instead of four, each with its own
// allocator arenas, on a laptop whose cores belong to the model; --heap-growing-percent=50, because
// with a small young generation a request's objects reach the old one, and V8 lets that grow to up
// to four times what a full collection leaves (40 MB live: a server of 260 MB) before it collects
// again; 1.5 times instead (bench/overhead/README.md, issue 28). `npm start` passes the same flags;
// `node bin/ctxproxy.js` runs without them.
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
