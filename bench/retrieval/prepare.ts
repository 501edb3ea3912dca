// Puts a copy of a repository in the state a developer's repository is in
// mid-task: a branch of their own, an unstaged edit to a source file (with a
// fake credential in it, which must arrive masked), and an ignored `.env`
// holding a fake password (which must never arrive at all). The given
// repository is not touched: it is cloned first.

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
  /** Strings that must never reach the model. */
  forbidden: string[];
}

const EXTENSIONS: Record<Language, string[]> = {
  py: ['.py'],
  go: ['.go'],
  rs: ['.rs'],
  ts: ['.ts', '.js'],
};

function editLines(language: Language, key: string): { line: string; secret: string } {
  const secret = `AKIA${createHash('sha256')
    .update(key)
    .digest('hex')
    .toUpperCase()
    .replace(/[^A-Z2-7]/g, '')
    .padEnd(16, 'Q')
    .slice(0, 16)}`;
  switch (language) {
    case 'py':
      return {
        line: `BENCH_RETRY_LIMIT = 7  # raised for the flaky staging proxy`,
        secret: `BENCH_AWS_KEY = "${secret}"`,
      };
    case 'go':
      return {
        line: `var benchRetryLimit = 7 // raised for the flaky staging proxy`,
        secret: `var benchAWSKey = "${secret}"`,
      };
    case 'rs':
      return {
        line: `pub const BENCH_RETRY_LIMIT: u32 = 7; // raised for the flaky staging proxy`,
        secret: `pub const BENCH_AWS_KEY: &str = "${secret}";`,
      };
    default:
      return {
        line: `export const benchRetryLimit = 7; // raised for the flaky staging proxy`,
        secret: `export const benchAwsKey = '${secret}';`,
      };
  }
}

export function prepare(source: string, root: string): Prepared {
  const name = path.basename(path.resolve(source));
  const dir = path.join(root, name);
  fs.rmSync(dir, { recursive: true, force: true });
  git(root, 'clone', '--quiet', path.resolve(source), dir);
  git(dir, 'checkout', '--quiet', '-b', 'bench-wip');
  const language = mainLanguage(dir);
  const files = git(dir, 'ls-files')
    .split('\n')
    .filter((rel) => EXTENSIONS[language].includes(path.extname(rel)) && !/test|spec|example|bench/i.test(rel))
    .sort();
  const editedFile = files[Math.floor(files.length / 2)] as string;
  const { line, secret } = editLines(language, name);
  fs.appendFileSync(path.join(dir, editedFile), `\n${line}\n${secret}\n`);
  const password = `hunter2-${createHash('sha256').update(`${name}-env`).digest('hex').slice(0, 12)}`;
  fs.writeFileSync(path.join(dir, '.env'), `DATABASE_PASSWORD=${password}\n`);
  fs.appendFileSync(path.join(dir, '.git', 'info', 'exclude'), '\n.env\n');
  const awsKey = /AKIA[A-Z2-7]{16}/.exec(secret)?.[0] as string;
  return { dir, name, language, editedLine: line, editedFile, forbidden: [awsKey, password] };
}
