// `npm run bench` runs every benchmark; `npm run bench -- NAME…` runs some.
// Each lives in bench/NAME/run.ts with a README.md beside it. Arguments from
// the first `--flag` on are passed to each benchmark (`npm run bench -- soak --minutes 1`).

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(`${here}${entry.name}/run.ts`))
  .map((entry) => entry.name)
  .sort();
const args = process.argv.slice(2);
const firstFlag = args.findIndex((arg) => arg.startsWith('--'));
const chosen = firstFlag === -1 ? args : args.slice(0, firstFlag);
const passed = firstFlag === -1 ? [] : args.slice(firstFlag);
const unknown = chosen.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}\n`);
  process.exit(2);
}
let failed = 0;
for (const name of chosen.length > 0 ? chosen : available) {
  process.stdout.write(`\n== bench/${name}\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', `${here}${name}/run.ts`, ...passed], {
    stdio: 'inherit',
  });
  if (result.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
