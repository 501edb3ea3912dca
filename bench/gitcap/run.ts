// bench/gitcap: what one request's git source costs on a repository with a
// huge text change, read whole and rendered (the baseline: the git source
// before byte limits) against the git source with its byte limits alone
// (bounded) and as it ships (default: files over the big-file size not
// diffed), each in a fresh process so its peak memory is its own. See README.md.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EMPTY_QUESTION } from '../../src/shared/question.ts';
import { defaultSourceDeps } from '../../src/sources/deps.ts';
import { renderDiff } from '../../src/sources/git/diffText.ts';
import { spawnGit } from '../../src/sources/git/gitRunner.ts';
import { createGitSource } from '../../src/sources/git.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeRepo } from '../../test/support/gitRepo.ts';

const flag = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : (process.argv[at + 1] ?? fallback);
};

const DIFF = ['--no-optional-locks', 'diff', '--no-ext-diff', '--no-textconv', '--unified=1'];

async function child(variant: string, dir: string): Promise<void> {
  const started = performance.now();
  let chars: number;
  if (variant === 'baseline') {
    // What the source did before: the whole output in memory, then the render.
    const raw = await spawnGit(dir).raw(DIFF);
    chars = renderDiff(raw, 12_000, 'git diff', () => false).text.length;
  } else {
    const deps = defaultSourceDeps({ isNeverRead: () => false, watchWorkTree: false });
    // `bounded` diffs the big file too, so the byte limits alone are measured.
    const options = variant === 'bounded' ? { diffBigFileBytes: 2 ** 40 } : {};
    const source = createGitSource(deps, new Workspaces(deps), options);
    const wanted = ['git.diff.unstaged'];
    const input = {
      workspace: dir,
      messages: [],
      lastUserText: '',
      question: EMPTY_QUESTION,
      mode: 'git-aware' as const,
      wanted,
      now: new Date(),
    };
    const result = await source.collect(input, new AbortController().signal);
    chars = result.items.find((item) => item.key === 'git.diff.unstaged')?.text.length ?? 0;
  }
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, chars })}\n`);
}

function measure(variant: string, dir: string): { ms: number; maxRssMb: number; chars: number } {
  const self = fileURLToPath(import.meta.url);
  const out = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', variant, '--repo', dir], {
    encoding: 'utf8',
    maxBuffer: 1024 * 1024,
  });
  if (out.status !== 0) throw new Error(`${variant} failed: ${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
  const childVariant = flag('child', '');
  if (childVariant) return child(childVariant, flag('repo', '.'));
  const mb = Number(flag('mb', process.env.BENCH_GITCAP_MB ?? '100'));
  const rounds = Number(flag('rounds', '3'));
  const repo = makeRepo({ files: { 'src/app.js': 'run();\n', 'logs/build.log': 'start\n' } });
  try {
    const line = `${'build step ok '.repeat(5)}\n`;
    repo.write('logs/build.log', `start\n${line.repeat(Math.floor((mb * 1024 * 1024) / line.length))}`);
    repo.write('src/app.js', 'run();\nstop();\n');
    const runs: Record<string, { ms: number; maxRssMb: number; chars: number }[]> = {
      baseline: [],
      bounded: [],
      default: [],
    };
    // Alternated, so a busy moment of the machine falls on both.
    for (let round = 0; round < rounds; round++) {
      for (const variant of ['baseline', 'bounded', 'default']) runs[variant]?.push(measure(variant, repo.dir));
    }
    const summary = Object.fromEntries(
      Object.entries(runs).map(([name, list]) => [
        name,
        { ms: median(list.map((r) => r.ms)), maxRssMb: median(list.map((r) => r.maxRssMb)), chars: list[0]?.chars },
      ]),
    );
    const base = summary.baseline;
    const bounded = summary.bounded;
    const shipped = summary.default;
    process.stdout.write(`a ${mb} MB text change beside a one-line edit, median of ${rounds} alternated runs\n`);
    for (const [name, row] of Object.entries(summary)) {
      process.stdout.write(
        `  ${name.padEnd(9)} ${row.ms.toFixed(0).padStart(6)} ms  peak RSS ${row.maxRssMb.toFixed(0).padStart(5)} MB  item ${row.chars} chars\n`,
      );
    }
    if (base && bounded) {
      process.stdout.write(
        `  bounded/baseline: time ${(bounded.ms / base.ms).toFixed(2)}x, peak RSS ${(bounded.maxRssMb / base.maxRssMb).toFixed(2)}x\n`,
      );
    }
    if (base && shipped) {
      process.stdout.write(
        `  default/baseline: time ${(shipped.ms / base.ms).toFixed(2)}x, peak RSS ${(shipped.maxRssMb / base.maxRssMb).toFixed(2)}x\n`,
      );
    }
  } finally {
    repo.cleanup();
  }
}

await main();
