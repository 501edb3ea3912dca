// Puts a copy of a repository in the state a developer's repository is in
// mid-task: a branch of their own with one commit on it, a staged edit, an
// unstaged edit to a source file (with a fake credential in it, which must
// arrive masked), and an ignored `.env` holding a fake password (which must
// never arrive at all). The given repository is not touched: it is cloned
// first.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { git, type Language, mainLanguage } from './questions.ts';

export interface Prepared {
  dir: string;
  name: string;
  language: Language;
  /** A line of the unstaged edit (not the secret): what "what did I change" must show. */
  editedLine: string;
  editedFile: string;
  /** The line of the staged edit: what "what have I staged" must show. */
  stagedLine: string;
  /** The branch's own commit: its subject and the line it added. */
  branchSubject: string;
  branchLine: string;
  /** The branch the clone came from (main, master, …). */
  defaultBranch: string;
  /** Strings that must never reach the model. */
  forbidden: string[];
}

export const EXTENSIONS: Record<Language, string[]> = {
  py: ['.py'],
  go: ['.go'],
  rs: ['.rs'],
  ts: ['.ts', '.js'],
  java: ['.java'],
  cs: ['.cs'],
  rb: ['.rb'],
  php: ['.php'],
  kt: ['.kt'],
  ex: ['.ex'],
  swift: ['.swift'],
  lua: ['.lua'],
  c: ['.c'],
  cpp: ['.cpp', '.cc', '.cxx'],
  scala: ['.scala'],
  dart: ['.dart'],
  hs: ['.hs'],
  zig: ['.zig'],
  erl: ['.erl'],
  clj: ['.clj'],
  ml: ['.ml'],
  pl: ['.pm'],
  r: ['.R'],
  jl: ['.jl'],
};

/** A constant declaration with a comment, as the language writes it. */
function declaration(language: Language, name: string, value: string, comment: string): string {
  const camel = name.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  switch (language) {
    case 'py':
      return `${name} = ${value}  # ${comment}`;
    case 'go':
      return `var ${camel} = ${value} // ${comment}`;
    case 'rs':
      return `pub const ${name}: ${value.startsWith('"') ? '&str' : 'u32'} = ${value}; // ${comment}`;
    case 'java':
      return `static final ${value.startsWith('"') ? 'String' : 'int'} ${name} = ${value}; // ${comment}`;
    case 'cs':
      return `public const ${value.startsWith('"') ? 'string' : 'int'} ${camel[0]?.toUpperCase()}${camel.slice(1)} = ${value}; // ${comment}`;
    case 'rb':
      return `${name} = ${value} # ${comment}`;
    case 'php':
      return `const ${name} = ${value}; // ${comment}`;
    case 'kt':
      return `const val ${name} = ${value} // ${comment}`;
    case 'ex':
      // Appended after a module's `end`: a module of its own, so the file still compiles.
      return `defmodule ${camel[0]?.toUpperCase()}${camel.slice(1)} do @moduledoc false; def value, do: ${value} end # ${comment}`;
    case 'swift':
      return `let ${camel} = ${value} // ${comment}`;
    case 'lua':
      return `local ${name} = ${value} -- ${comment}`;
    case 'c':
    case 'cpp':
      return `#define ${name} ${value} /* ${comment} */`;
    case 'scala':
      // Appended after the last top-level definition: an object of its own.
      return `object ${camel[0]?.toUpperCase()}${camel.slice(1)} { val Value = ${value} } // ${comment}`;
    case 'dart':
      return `const ${camel} = ${value}; // ${comment}`;
    case 'hs':
      return `${camel} = ${value} -- ${comment}`;
    case 'zig':
      return `pub const ${camel} = ${value}; // ${comment}`;
    case 'erl':
      return `-define(${name}, ${value}). % ${comment}`;
    case 'clj':
      return `(def ${name.toLowerCase().replace(/_/g, '-')} ${value}) ; ${comment}`;
    case 'ml':
      return `let ${name.toLowerCase()} = ${value} (* ${comment} *)`;
    case 'pl':
      return `use constant ${name} => ${value}; # ${comment}`;
    case 'r':
      return `${name} <- ${value} # ${comment}`;
    case 'jl':
      return `const ${name} = ${value} # ${comment}`;
    default:
      return `export const ${camel} = ${value}; // ${comment}`;
  }
}

/**
 * Clones without checking out, then writes every file whose blob the source
 * holds. A fetched snapshot may lack a few large blobs; a plain clone's
 * checkout fails on them, so those paths are marked skip-worktree (absent from
 * the work tree, unchanged in the index) instead of dropping the repository.
 */
function cloneReadable(source: string, dir: string): void {
  git(path.dirname(dir), 'clone', '--quiet', '--no-checkout', source, dir);
  const entries = git(dir, 'ls-tree', '-r', '-z', 'HEAD')
    .split('\0')
    .filter(Boolean)
    .map((record) => /^\d+ (\w+) (\w+)\t(.*)$/s.exec(record))
    .filter((m): m is RegExpExecArray => m?.[1] === 'blob');
  const present = execFileSync('git', ['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
    cwd: dir,
    input: entries.map((m) => m[2]).join('\n'),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  })
    .split('\n')
    .filter((line) => line.endsWith(' blob'))
    .map((line) => line.split(' ')[0]);
  const have = new Set(present);
  const missing = entries.filter((m) => !have.has(m[2] as string)).map((m) => m[3] as string);
  git(dir, 'read-tree', 'HEAD');
  if (missing.length > 0) {
    execFileSync('git', ['update-index', '--skip-worktree', '-z', '--stdin'], {
      cwd: dir,
      input: missing.map((rel) => `${rel}\0`).join(''),
    });
    console.error(
      `prepare: ${path.basename(dir)}: ${missing.length} path(s) whose blob the snapshot lacks are left out`,
    );
  }
  git(dir, 'checkout-index', '--all', '--quiet');
  git(dir, 'update-index', '--refresh', '-q');
}

export function prepare(source: string, root: string): Prepared {
  const name = path.basename(path.resolve(source)).replace(/\.git$/, '');
  const dir = path.join(root, name);
  fs.rmSync(dir, { recursive: true, force: true });
  cloneReadable(path.resolve(source), dir);
  const defaultBranch = git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim();
  git(dir, 'checkout', '--quiet', '-b', 'bench-wip');
  const language = mainLanguage(dir);
  const files = git(dir, 'ls-files')
    .split('\n')
    .filter((rel) => EXTENSIONS[language].includes(path.extname(rel)) && !/test|spec|example|bench/i.test(rel))
    .sort();
  const pickFile = (at: number) => files[Math.floor(files.length * at)] as string;

  // The branch's commit: a line added to one file, committed by a bench author.
  const branchFile = pickFile(0.8);
  const branchLine = declaration(language, 'BENCH_BACKOFF_FACTOR', '3', 'gentler backoff for the mirror');
  fs.appendFileSync(path.join(dir, branchFile), `\n${branchLine}\n`);
  const branchSubject = 'Use a gentler backoff when the mirror is slow';
  git(dir, 'add', '--', branchFile);
  // Committed through plumbing: `write-tree --missing-ok` accepts the blobs a snapshot lacks, where `git commit` refuses.
  const tree = git(dir, 'write-tree', '--missing-ok').trim();
  const commit = execFileSync('git', ['commit-tree', tree, '-p', 'HEAD', '-m', branchSubject], {
    cwd: dir,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Bench Author',
      GIT_AUTHOR_EMAIL: 'bench@example.invalid',
      GIT_COMMITTER_NAME: 'Bench Author',
      GIT_COMMITTER_EMAIL: 'bench@example.invalid',
    },
  }).trim();
  git(dir, 'update-ref', '-m', 'bench: branch commit', 'HEAD', commit);

  // A staged edit in another file.
  const stagedFile = pickFile(0.3) === branchFile ? pickFile(0.35) : pickFile(0.3);
  const stagedLine = declaration(language, 'BENCH_STAGED_TIMEOUT', '45', 'longer timeout for slow mirrors');
  fs.appendFileSync(path.join(dir, stagedFile), `\n${stagedLine}\n`);
  git(dir, 'add', '--', stagedFile);

  // The unstaged edit, with a fake credential.
  const editedFile = pickFile(0.5);
  const secret = `AKIA${createHash('sha256')
    .update(name)
    .digest('hex')
    .toUpperCase()
    .replace(/[^A-Z2-7]/g, '')
    .padEnd(16, 'Q')
    .slice(0, 16)}`;
  const line = declaration(language, 'BENCH_RETRY_LIMIT', '7', 'raised for the flaky staging proxy');
  const secretLine = declaration(language, 'BENCH_AWS_KEY', `"${secret}"`, 'staging');
  fs.appendFileSync(path.join(dir, editedFile), `\n${line}\n${secretLine}\n`);
  const password = `hunter2-${createHash('sha256').update(`${name}-env`).digest('hex').slice(0, 12)}`;
  fs.writeFileSync(path.join(dir, '.env'), `DATABASE_PASSWORD=${password}\n`);
  fs.appendFileSync(path.join(dir, '.git', 'info', 'exclude'), '\n.env\n');
  return {
    dir,
    name,
    language,
    editedLine: line,
    editedFile,
    stagedLine,
    branchSubject,
    branchLine,
    defaultBranch,
    forbidden: [secret, password],
  };
}
