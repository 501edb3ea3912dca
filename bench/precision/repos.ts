// Precision on public repositories nobody here wrote (repos.json, pinned by
// commit): how many of their configuration, test and documentation files the
// redactor changes, per kind and per set (`dev`, the repositories rules were
// tuned on, and `heldOut`, only measured). Files are read with git from bare
// mirrors, one directory per repository (`owner+name/repo`), never copied here.
//
//   node --import tsx bench/precision/repos.ts [--mirror DIR] [--set dev|heldOut] [--verbose]

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { kindOf } from './cleanSet.ts';

interface PinnedRepo {
  repo: string;
  commit: string;
}

const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const verbose = argv.includes('--verbose');
const mirror = option('--mirror') ?? process.env.CTXPROXY_BENCH_MIRROR ?? '/work/.mirror';
const onlySet = option('--set');
const MAX_BYTES = 200_000;

const pinned = JSON.parse(readFileSync(join(import.meta.dirname, 'repos.json'), 'utf8')) as Record<
  'dev' | 'heldOut',
  PinnedRepo[]
>;

/** Kinds beyond cleanSet.ts's: Helm templates, Terraform, CI workflows and HAR captures are configuration too. */
function repoKindOf(path: string): string | undefined {
  if (/\.(?:tpl|tf|tfvars|har|gotmpl|hcl)$/.test(path) || /(?:^|\/)\.github\/workflows\//.test(path)) {
    return /(?:^|\/)(?:tests?|fixtures?|testdata|examples?)\//.test(path) ? 'tests/fixtures' : 'config';
  }
  return kindOf(path);
}

function git(dir: string, args: string[]): Buffer {
  return execFileSync('git', ['-C', dir, ...args], { maxBuffer: 256 * 1024 * 1024 });
}

function* repoFiles({ repo, commit }: PinnedRepo): Generator<{ path: string; kind: string; text: string }> {
  const dir = join(mirror, repo.replace('/', '+'), 'repo');
  const listing = git(dir, ['ls-tree', '-r', '-l', commit]).toString('utf8');
  for (const line of listing.split('\n')) {
    const match = /^\d+ blob \S+\s+(\d+)\t(.+)$/.exec(line);
    if (!match || Number(match[1]) > MAX_BYTES) continue;
    const path = match[2]!;
    const kind = repoKindOf(path);
    if (!kind) continue;
    const text = git(dir, ['show', `${commit}:${path}`]).toString('utf8');
    if (text.includes('\u0000') || text.includes('\uFFFD')) continue;
    yield { path, kind, text };
  }
}

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text
    .slice(from, to === -1 ? undefined : to)
    .trim()
    .slice(0, 160);
}

const redactor = await createRedactor({ timeoutMs: 60_000 });
for (const set of ['dev', 'heldOut'] as const) {
  if (onlySet && onlySet !== set) continue;
  const tallies = new Map<string, { files: number; changed: number }>();
  const byRule = new Map<string, number>();
  const count = (kind: string, changed: boolean) => {
    const t = tallies.get(kind) ?? { files: 0, changed: 0 };
    t.files++;
    if (changed) t.changed++;
    tallies.set(kind, t);
  };
  for (const pinnedRepo of pinned[set]) {
    for (const file of repoFiles(pinnedRepo)) {
      const result = await redactor.redact(file.text, { path: file.path });
      const changed = result.text !== file.text;
      count(file.kind, changed);
      count('all', changed);
      if (!changed) continue;
      for (const rule of new Set(result.findings.map((f) => f.ruleId))) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
      if (verbose) {
        for (const f of result.findings) {
          console.log(
            `  [${set}] ${pinnedRepo.repo} ${file.path}  ${f.ruleId}  ${lineAround(file.text, f.start, f.end)}`,
          );
        }
      }
    }
  }
  console.log(`\n${set} (${pinned[set].length} repositories)`);
  console.log('| kind | files | changed | per 1,000 |\n| --- | ---: | ---: | ---: |');
  for (const [kind, t] of [...tallies].sort()) {
    console.log(`| ${kind} | ${t.files} | ${t.changed} | ${((1000 * t.changed) / t.files).toFixed(1)} |`);
  }
  console.log(`rules: ${[...byRule].map(([rule, n]) => `${rule} ${n}`).join(', ') || 'none'}`);
}
