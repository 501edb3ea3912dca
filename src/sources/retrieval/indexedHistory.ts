// History answered from the index (index/historyIndex.ts): the index says
// which commits; their text is read back now with git (the hardened runner,
// each read bounded), so what is sent is the commit as it is and takes the one
// redaction path every item takes. Two questions:
// - which commits changed what the question names ("which commit added
//   `retry_after`", "when did parse_links change and why"): the commits whose
//   changed lines hold the name (the asked side first: added for "added"),
//   above those whose message only mentions it, with the matching lines;
// - the history of named files ("who last changed rates.py"): the newest
//   commits that touched them, without walking the whole history.

import { type GitRunner, readPrefix } from '../git/gitRunner.ts';
import { NO_DRIVERS } from '../git/gitSafety.ts';
import type { HistoryIndex } from './index/historyIndex.ts';
import { lineMatcher } from './index/words.ts';

const LOG_FORMAT = '--format=commit %h %ad %an%n    %s';

/** Bytes of one commit's patch read back at most (git is stopped there). */
const COMMIT_READ_BYTES = 64 * 1024;
/** Changed lines shown per hunk, at most (the matching ones first). */
const HUNK_LINES = 6;
/** Characters of a commit's body kept (the "why" is usually in its first lines). */
const BODY_CHARS = 300;

/** Which side of a change the question asks about: "added/introduced" or "removed/deleted". */
export function askedSide(text: string): 'added' | 'removed' | undefined {
  if (/\b(?:remov\w*|delet\w*|dropp\w*|got rid)\b/i.test(text)) return 'removed';
  if (/\b(?:add(?:s|ed)?|introduc\w*|creat\w*|first (?:appear\w*|written))\b/i.test(text)) return 'added';
  return undefined;
}

/**
 * The commits whose changes touch `names` (whole words) or `strings` (anywhere), best first, each with its
 * header, the first lines of its body and its changed lines that hold them; `maxChars` in all.
 */
export async function changesOf(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  lookup: HistoryIndex,
  ask: {
    names: readonly string[];
    strings: readonly string[];
    /** Lines of code the question pastes: the commits that changed one of them come before any other. */
    lines?: readonly string[];
    side: 'added' | 'removed' | undefined;
  },
  limits: { commits: number; maxChars: number },
): Promise<{ text: string; ofLine: boolean }> {
  const lines = ask.lines ?? [];
  const patterns = [...ask.names, ...ask.strings, ...lines];
  if (patterns.length === 0) return NOTHING;
  // A pasted line's words also match every commit that touched one of its names, newer ones first: the
  // commits whose changed lines hold the whole line are the answer, alone when there are any.
  const ofLine =
    lines.length > 0
      ? lookup.changesOf(lines, ask.side, limits.commits).filter((commit) => commit.place !== 'message')
      : [];
  const found = ofLine.length > 0 ? ofLine : lookup.changesOf(patterns, ask.side, limits.commits);
  if (found.length === 0) return NOTHING;
  const byName = lineMatcher(ofLine.length > 0 ? [] : ask.names, true, false);
  const byString = lineMatcher(ofLine.length > 0 ? lines : [...ask.strings, ...lines], false, false);
  const matches = (line: string) => byName(line) || byString(line);
  const shown = await Promise.all(
    found.map((commit) =>
      readPrefix(
        git,
        withPrefix([
          'show',
          '--format=commit %h %ad %an%n    %s%x00%b%x00',
          '--date=short',
          '--unified=0',
          '--no-color',
          ...NO_DRIVERS,
          '--diff-merges=off',
          '--relative',
          ...(commit.rels.length === 0 ? ['-s'] : []),
          commit.sha,
          '--',
          ...commit.rels.map((rel) => `:(literal)${rel}`),
        ]),
        COMMIT_READ_BYTES,
      ).then(
        (out) => renderCommit(out.text, matches, lookup.cutOf(commit.sha)),
        () => '',
      ),
    ),
  );
  return { text: fit(shown.filter(Boolean), limits.maxChars), ofLine: ofLine.length > 0 };
}

const NOTHING = { text: '', ofLine: false };

/** One commit: its header, its body's head, and per file the hunks whose changed lines match. */
function renderCommit(text: string, matches: (line: string) => boolean, cut: string | null): string {
  const [header = '', body = '', patch = ''] = text.split('\0');
  const out = [header.trimEnd()];
  const why = body.trim().replace(/\n{2,}/g, '\n');
  if (why) out.push(indent(why.length > BODY_CHARS ? `${why.slice(0, BODY_CHARS)}…` : why));
  let file = '';
  let hunk: string[] = [];
  let head = '';
  const flush = () => {
    if (hunk.length === 0) return;
    const hits = hunk.filter((line) => matches(line.slice(1)));
    if (hits.length > 0) {
      const kept = [...hits, ...hunk.filter((line) => !hits.includes(line))].slice(0, HUNK_LINES);
      if (file) out.push(`  ${file}`);
      file = '';
      out.push(head, ...kept.map((line) => line.slice(0, 200)));
      if (hunk.length > kept.length) out.push(`… ${hunk.length - kept.length} more changed lines`);
    }
    hunk = [];
  };
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      flush();
      file = '';
    } else if (line.startsWith('+++ ') || line.startsWith('--- ')) {
      const name = line.slice(4).replace(/\t$/, '');
      if (name !== '/dev/null') file = name.replace(/^[ab]\//, '');
    } else if (line.startsWith('@@')) {
      flush();
      head = line.replace(/^(@@[^@]*@@).*/, '$1');
    } else if ((line.startsWith('+') || line.startsWith('-')) && head) hunk.push(line);
  }
  flush();
  if (cut) out.push(`(indexed in part: ${cut})`);
  return out.join('\n');
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');

/** Whole commits while they fit, then the next one cut with a marker. */
function fit(parts: readonly string[], maxChars: number): string {
  const out: string[] = [];
  let used = 0;
  for (const part of parts) {
    if (used + part.length + 2 > maxChars) {
      const room = maxChars - used - 40;
      if (room > 200) out.push(`${part.slice(0, part.lastIndexOf('\n', room))}\n… (cut: more in git show)`);
      break;
    }
    out.push(part);
    used += part.length + 2;
  }
  return out.join('\n\n');
}

/**
 * The recent commits of the named files, from the index: the log of those commits (what `git log -- PATH`
 * gives for them) and the newest one's changed lines in those files. Undefined when the index holds no
 * commit of them (older than its bound: `git log` answers).
 */
export async function fileHistory(
  git: GitRunner,
  withPrefix: (args: string[]) => string[],
  lookup: HistoryIndex,
  pathspecs: readonly string[],
  limits: { commits: number; logBytes: number; patchBytes: number },
): Promise<{ log: string; patch: string; branch: false } | undefined> {
  const names = pathspecs.map((spec) => spec.replace(/^:\((?:literal|glob)\)(?:\*\*\/)?/, ''));
  const commits = lookup.commitsOf(names, limits.commits);
  const newest = commits[0];
  if (!newest) return undefined;
  const [log, patch] = await Promise.all([
    readPrefix(
      git,
      withPrefix([
        'log',
        '--no-walk=unsorted',
        '--date=short',
        LOG_FORMAT,
        '--name-status',
        '--no-color',
        ...NO_DRIVERS,
        ...commits.map((commit) => commit.sha),
        '--',
        ...pathspecs,
      ]),
      limits.logBytes,
    ),
    readPrefix(
      git,
      withPrefix(['show', '--format=', '--unified=1', '--no-color', ...NO_DRIVERS, newest.sha, '--', ...pathspecs]),
      limits.patchBytes,
    ).catch(() => ({ text: '', cut: false })),
  ]);
  if (log.text.trim() === '') return undefined;
  const mark = (text: string, cut: boolean, what: string) => (cut ? `${text}… (cut: ${what})` : text);
  return {
    log: mark(log.text.trimEnd(), log.cut, 'more in git log'),
    patch: mark(patch.text.trimEnd(), patch.cut, `more in git show ${newest.sha.slice(0, 12)}`),
    branch: false,
  };
}
