// Precision on public repositories nobody here wrote (repos.json, pinned by
// commit): how many of their configuration, test, documentation, notebook and
// HTTP-fixture files the redactor changes, per kind of file and per kind of
// repository, for each set: `dev` (tuned on, every change reviewed),
// `heldOut` to `heldOut12` (measured unseen first, then reviewed and
// tuned on) and `heldBack` (only its totals are printed). Files are read with git from
// bare mirrors, one directory per repository (`owner+name/repo`), never
// copied here. `--before DIR` runs a second checkout's redactor over the same
// files in the same process and prints its column beside ours.
//
//   node --import tsx bench/precision/repos.ts [--mirror DIR] [--set dev|heldOut|heldBack|heldOut2|heldOut3|heldOut4|heldOut5|heldOut6|heldOut7|heldOut8|heldOut9|heldOut10|heldOut11|heldOut12]
//        [--before DIR] [--verbose] [--kept]

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRedactor } from '../../src/redact/createRedactor.ts';
import { kindOf } from './cleanSet.ts';

interface PinnedRepo {
  repo: string;
  commit: string;
  /** The kind of repository: Helm charts, Terraform modules, CLI docs… */
  kind: string;
  /** A folder that limits a large repository. */
  under?: string;
}

type SetName =
  | 'dev'
  | 'heldOut'
  | 'heldBack'
  | 'heldOut2'
  | 'heldOut3'
  | 'heldOut4'
  | 'heldOut5'
  | 'heldOut6'
  | 'heldOut7'
  | 'heldOut8'
  | 'heldOut9'
  | 'heldOut10'
  | 'heldOut11'
  | 'heldOut12';
const SETS: SetName[] = [
  'dev',
  'heldOut',
  'heldBack',
  'heldOut2',
  'heldOut3',
  'heldOut4',
  'heldOut5',
  'heldOut6',
  'heldOut7',
  'heldOut8',
  'heldOut9',
  'heldOut10',
  'heldOut11',
  'heldOut12',
];
/** Sets whose files are never printed: only their totals are read. */
const UNSEEN = new Set<SetName>(['heldBack']);

const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const verbose = argv.includes('--verbose');
const mirror = option('--mirror') ?? process.env.CTXPROXY_BENCH_MIRROR ?? '/work/.mirror';
const onlySet = option('--set');
const beforeDir = option('--before');
const MAX_BYTES = 200_000;

const pinned = JSON.parse(readFileSync(join(import.meta.dirname, 'repos.json'), 'utf8')) as Record<
  SetName,
  PinnedRepo[]
>;

/**
 * Kinds beyond cleanSet.ts's: notebooks and HTTP captures on their own; Helm, Terraform, Nomad, Nix, Salt,
 * Puppet and ERB templates, Prisma schemas, Chef attributes, systemd units, CI files, Jenkinsfiles and Vagrantfiles are
 * configuration; gettext catalogues, Apple strings files, Android string resources and files under a locale
 * folder are translations.
 */
function repoKindOf(path: string): string | undefined {
  if (/\.ipynb$/.test(path)) return 'notebooks';
  if (
    /\.(?:po|pot|strings|xliff|xlf)$/.test(path) ||
    /(?:^|\/)res\/values[^/]*\/strings\.xml$/.test(path) ||
    /(?:^|\/)(?:locales?|lang|i18n|l10n|translations)\/.+\.(?:json|ya?ml|php|properties|toml)$/.test(path)
  ) {
    return 'translations';
  }
  if (/\.(?:har|http|rest|hurl|bru)$/.test(path) || /(?:^|\/)(?:cassettes|recordings)\//.test(path)) {
    return 'http fixtures';
  }
  if (
    /\.(?:tpl|tf|tfvars|gotmpl|hcl|nomad|nix|sls|pp|epp|erb|jinja|service|timer|prisma)$/.test(path) ||
    /(?:^|\/)(?:attributes|pillar)\/[^/]+\.(?:rb|sls)$/.test(path) ||
    /(?:^|\/)(?:\.github\/workflows\/|Jenkinsfile$|Vagrantfile$)/i.test(path)
  ) {
    return /(?:^|\/)(?:tests?|fixtures?|testdata|examples?)\//.test(path) ? 'tests/fixtures' : 'config';
  }
  return kindOf(path);
}

function gitDir(repo: string): string {
  return join(mirror, repo.replace('/', '+'), 'repo');
}

/** Every file of the pinned commit in the set, read in one `git cat-file --batch` per repository. */
function repoFiles({ repo, commit, under }: PinnedRepo): { path: string; kind: string; text: string }[] {
  const dir = gitDir(repo);
  const listing = execFileSync('git', ['--git-dir', dir, 'ls-tree', '-r', '-l', commit, ...(under ? [under] : [])], {
    maxBuffer: 256 * 1024 * 1024,
  }).toString('utf8');
  const wanted: { path: string; kind: string; sha: string }[] = [];
  for (const line of listing.split('\n')) {
    const match = /^\d+ blob (\S+)\s+(\d+)\t(.+)$/.exec(line);
    if (!match || Number(match[2]) > MAX_BYTES) continue;
    const kind = repoKindOf(match[3]!);
    if (kind) wanted.push({ sha: match[1]!, path: match[3]!, kind });
  }
  const batch = spawnSync('git', ['--git-dir', dir, 'cat-file', '--batch'], {
    input: wanted.map((w) => w.sha).join('\n'),
    maxBuffer: 1024 * 1024 * 1024,
  }).stdout;
  const files: { path: string; kind: string; text: string }[] = [];
  let at = 0;
  for (const w of wanted) {
    const headerEnd = batch.indexOf(10, at);
    const size = Number(batch.subarray(at, headerEnd).toString('latin1').split(' ')[2]);
    const text = batch.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8');
    at = headerEnd + 1 + size + 1;
    if (text.includes('\u0000') || text.includes('\uFFFD')) continue;
    files.push({ path: w.path, kind: w.kind, text });
  }
  return files;
}

/** The finding with some text either side, on one line (a HAR or a notebook is often one long line). */
function around(text: string, start: number, end: number): string {
  const from = Math.max(text.lastIndexOf('\n', start - 1) + 1, start - 70);
  const to = Math.min(end + 50, text.indexOf('\n', end) === -1 ? text.length : text.indexOf('\n', end));
  const show = (s: string) => s.replace(/\s+/g, ' ');
  return `${show(text.slice(from, start))}«${show(text.slice(start, Math.min(end, start + 120)))}»${show(text.slice(end, to))}`;
}

type Redact = (
  text: string,
  options: { path: string },
) => Promise<{ text: string; findings: { ruleId: string; start: number; end: number }[] }>;

async function loadRedactor(dir: string | undefined): Promise<Redact> {
  if (!dir) return (await createRedactor({ timeoutMs: 60_000 })).redact;
  const module = (await import(pathToFileURL(resolve(dir, 'src/redact/createRedactor.ts')).href)) as {
    createRedactor: typeof createRedactor;
  };
  return (await module.createRedactor({ timeoutMs: 60_000 })).redact;
}

const ours = await loadRedactor(undefined);
const before = beforeDir ? await loadRedactor(beforeDir) : undefined;

interface Tally {
  files: number;
  changed: number;
  before: number;
}
const pct = (n: number, of: number) => `${n} (${((100 * n) / of).toFixed(2)} %)`;

for (const set of SETS) {
  if (onlySet && onlySet !== set) continue;
  const byFileKind = new Map<string, Tally>();
  const byRepoKind = new Map<string, Tally>();
  const byRule = new Map<string, number>();
  const count = (map: Map<string, Tally>, key: string, changed: boolean, changedBefore: boolean) => {
    const t = map.get(key) ?? { files: 0, changed: 0, before: 0 };
    t.files++;
    if (changed) t.changed++;
    if (changedBefore) t.before++;
    map.set(key, t);
  };
  for (const pinnedRepo of pinned[set]) {
    for (const file of repoFiles(pinnedRepo)) {
      const result = await ours(file.text, { path: file.path });
      const changed = result.text !== file.text;
      const changedBefore = before ? (await before(file.text, { path: file.path })).text !== file.text : false;
      for (const [map, key] of [
        [byFileKind, file.kind],
        [byFileKind, 'all'],
        [byRepoKind, pinnedRepo.kind],
      ] as const) {
        count(map, key, changed, changedBefore);
      }
      if (!changed) continue;
      for (const rule of new Set(result.findings.map((f) => f.ruleId))) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
      if (verbose && !UNSEEN.has(set)) {
        for (const f of result.findings) {
          console.log(`  [${set}] ${pinnedRepo.repo} ${file.path}  ${f.ruleId}  ${around(file.text, f.start, f.end)}`);
        }
      }
    }
  }
  console.log(`\n${set} (${pinned[set].length} repositories)`);
  const header = before
    ? '| kind | files | before | after |\n| --- | ---: | ---: | ---: |'
    : '| kind | files | changed |\n| --- | ---: | ---: |';
  for (const [title, map] of [
    ['file kind', byFileKind],
    ['repository kind', byRepoKind],
  ] as const) {
    console.log(`\nby ${title}\n${header}`);
    for (const [kind, t] of [...map].sort()) {
      const cells = before ? [pct(t.before, t.files), pct(t.changed, t.files)] : [pct(t.changed, t.files)];
      console.log(`| ${kind} | ${t.files} | ${cells.join(' | ')} |`);
    }
  }
  console.log(`rules: ${[...byRule].map(([rule, n]) => `${rule} ${n}`).join(', ') || 'none'}`);
}
