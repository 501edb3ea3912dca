// `node --import ./maxRss.mjs …`: on exit, appends the process's peak resident set
// (KiB, from getrusage) to the file named by CTXPROXY_BENCH_RSS_FILE. Loaded into the
// reference `node -e 0` as well, so its own small cost is in both sides of each ratio.

import { appendFileSync } from 'node:fs';

const file = process.env.CTXPROXY_BENCH_RSS_FILE;
if (file) process.on('exit', () => appendFileSync(file, `${process.resourceUsage().maxRSS}\n`));
