// Downloads the pinned packages of sources.json (npm tarballs and Debian
// packages, through their ordinary clients) and unpacks each into the cache,
// outside the repository: the clean set is thousands of third-party files
// that no commit should carry. A package already unpacked is not fetched again.
//
//   node --import tsx bench/precision/fetch.ts [--cache DIR]

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Source {
  name: string;
  version: string;
}

export interface Sources {
  npm: Source[];
  debian: Source[];
}

export const SOURCES: Sources = JSON.parse(readFileSync(join(import.meta.dirname, 'sources.json'), 'utf8'));

export function cacheDir(argv: readonly string[] = process.argv): string {
  const at = argv.indexOf('--cache');
  return at >= 0 && argv[at + 1] ? argv[at + 1]! : join(homedir(), '.cache/ctxproxy-bench/precision');
}

/** The folder one package unpacks to: `npm/<name>@<version>` or `debian/<name>_<version>`. */
export function packageDir(cache: string, registry: 'npm' | 'debian', source: Source): string {
  const name = source.name.replaceAll('/', '+');
  return join(cache, registry, registry === 'npm' ? `${name}@${source.version}` : `${name}_${source.version}`);
}

const COMPLETE = '.complete';

function fetchNpm(source: Source, into: string, scratch: string): void {
  const file = execFileSync(
    'npm',
    ['pack', `${source.name}@${source.version}`, '--silent', '--pack-destination', scratch],
    {
      encoding: 'utf8',
    },
  )
    .trim()
    .split('\n')
    .at(-1)!;
  execFileSync('tar', ['xzf', join(scratch, file), '-C', into, '--strip-components=1']);
}

function fetchDebian(source: Source, into: string, scratch: string): void {
  execFileSync('apt-get', ['download', `${source.name}=${source.version}`], { cwd: scratch, stdio: 'ignore' });
  const deb = readdirSync(scratch).find((n) => n.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${source.name}=${source.version}: no .deb`);
  execFileSync('dpkg-deb', ['-x', join(scratch, deb), into]);
  // Debian compresses docs (README.md.gz): unpack them so they read as the text a repository holds.
  execFileSync('find', [into, '-name', '*.gz', '-type', 'f', '-exec', 'gunzip', '-fq', '{}', '+'], { stdio: 'ignore' });
}

export function fetchAll(cache: string, log: (line: string) => void = console.log): void {
  const jobs: ['npm' | 'debian', Source][] = [
    ...SOURCES.npm.map((s) => ['npm', s] as ['npm', Source]),
    ...SOURCES.debian.map((s) => ['debian', s] as ['debian', Source]),
  ];
  for (const [registry, source] of jobs) {
    const into = packageDir(cache, registry, source);
    if (existsSync(join(into, COMPLETE))) continue;
    rmSync(into, { recursive: true, force: true });
    mkdirSync(into, { recursive: true });
    const scratch = mkdtempSync(join(tmpdir(), 'ctxproxy-precision-'));
    try {
      log(`fetching ${registry} ${source.name}@${source.version}`);
      if (registry === 'npm') fetchNpm(source, into, scratch);
      else fetchDebian(source, into, scratch);
      writeFileSync(join(into, COMPLETE), '');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}

if (process.argv[1]?.endsWith('fetch.ts')) {
  const cache = cacheDir();
  fetchAll(cache);
  console.log(`clean set in ${cache}`);
}
