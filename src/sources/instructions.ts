// The instructions source: the files agents read for project conventions
// (CLAUDE.md family, .claude/rules, AGENTS.md, Copilot and Cursor rules), one
// item per file, labelled with its path, in the order the tools apply them:
// the root's first, then those of the folders in play (the folders of the
// files named or changed), nearest last, each with its `@imports`.

import type fs from 'node:fs';
import path from 'node:path';
import { pathsInPlay } from '../shared/question.ts';
import type { Question } from '../shared/questionTypes.ts';
import type { ContextItem, ContextSource, SkippedPath } from '../shared/types.ts';
import { capHead } from './cap.ts';
import { defineSource } from './defineSource.ts';
import type { SourceDeps } from './deps.ts';
import { globList, parseFrontmatter } from './frontmatter.ts';
import { resolveImports } from './instructionImports.ts';
import { instructionSections } from './instructionSections.ts';
import { TrackedMemo } from './trackedMemo.ts';
import { isInside } from './workspace/canonicalPath.ts';
import { ignoreChecker } from './workspace/gitignored.ts';
import { matchesAny } from './workspace/globs.ts';
import { FileGuard, makeZone, type Zone } from './workspace/guard.ts';
import type { Workspaces } from './workspace.ts';

export const MAX_INSTRUCTION_CHARS = 40_000;
const STATUS_WAIT_MS = 1_500;
/** Nested folders whose instruction files are looked for, at most (shallowest first). */
const MAX_NESTED_DIRS = 24;

interface Candidate {
  abs: string;
  /** Where its real path may lie (and its relative imports). */
  zone: Zone;
  group: 'user' | 'project' | 'rules';
  priority: number;
  /** For scoped rule files: the globs that must match a file in play. */
  globs?: string[] | undefined;
  alwaysApply?: boolean | undefined;
  /** For rule files inside a nested folder: the folder their globs are relative to. */
  scope?: string | undefined;
}

/** Directories from just below `/` down to `dir`, root first. */
export function ancestorsOf(dir: string): string[] {
  const out: string[] = [];
  let current = path.resolve(dir);
  while (path.dirname(current) !== current) {
    out.unshift(current);
    current = path.dirname(current);
  }
  return out;
}

/** A folder's entries, sorted by name, stamped into the run's tracker (the run's shared listing). */
type List = (dir: string) => fs.Dirent[];

function listMarkdown(dir: string, list: List, suffix: string, recursive: boolean): string[] {
  const out: string[] = [];
  for (const entry of list(dir)) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory() && recursive) out.push(...listMarkdown(abs, list, suffix, true));
    // Links are listed too: the guard decides on their real path, and reports a refusal.
    else if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(suffix)) out.push(abs);
  }
  return out;
}

interface Zones {
  workspace: Zone;
  /** Where `@~/` imports may land: `~/.claude` only. */
  home: Zone;
  /**
   * The user's own `~/.claude/CLAUDE.md` and `~/.claude/rules`: chosen by ctxproxy, not by the
   * repository, so a link the user made (a dotfiles manager) is followed; never-read still applies.
   */
  user: Zone;
}

function candidatesFor(workspace: string, home: string, zones: Zones): Candidate[] {
  const list: Candidate[] = [
    { abs: path.join(home, '.claude', 'CLAUDE.md'), zone: zones.user, group: 'user', priority: 90 },
  ];
  for (const dir of ancestorsOf(workspace)) {
    // Above the workspace, a folder's own CLAUDE.md files are the user's: each stays in its folder.
    const zone = dir === workspace || isInside(workspace, dir) ? zones.workspace : makeZone('its folder', [dir]);
    for (const name of ['CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md']) {
      list.push({ abs: path.join(dir, name), zone, group: 'project', priority: 95 });
    }
  }
  list.push({ abs: path.join(workspace, 'AGENTS.md'), zone: zones.workspace, group: 'project', priority: 92 });
  list.push({
    abs: path.join(workspace, '.github', 'copilot-instructions.md'),
    zone: zones.workspace,
    group: 'project',
    priority: 80,
  });
  return list;
}

const depth = (rel: string) => (rel === '' ? 0 : rel.split('/').length);

/** The folders of the files in play and their parents inside the workspace (not the root), shallowest first. */
export function nestedFolders(
  workspace: string,
  inPlay: readonly string[],
  ignored: (rel: string) => boolean = ignoreChecker(workspace),
): string[] {
  const dirs = new Set<string>();
  for (const file of inPlay) {
    const parts = file.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs]
    .filter((dir) => !dir.startsWith('..') && !ignored(`${dir}/`))
    .sort((a, b) => depth(a) - depth(b) || a.localeCompare(b))
    .slice(0, MAX_NESTED_DIRS);
}

/**
 * The instruction files of the folders in play, after everything at the root:
 * Claude Code reads a folder's CLAUDE.md when it works on files under it, and
 * applies root first, nearest last; AGENTS.md and the folder's own rule
 * directories follow the same order.
 */
function nestedCandidates(
  workspace: string,
  inPlay: readonly string[],
  list: List,
  ignored: (rel: string) => boolean,
  zone: Zone,
): Candidate[] {
  const out: Candidate[] = [];
  for (const dir of nestedFolders(workspace, inPlay, ignored)) {
    const base = path.join(workspace, dir);
    // One listing per folder (tracked: a file added there invalidates) instead of a guard check
    // per name that is not there; most folders in play hold no instruction file at all.
    const present = new Set(list(base).map((entry) => entry.name));
    for (const name of ['CLAUDE.md', '.claude/CLAUDE.md', 'CLAUDE.local.md', 'AGENTS.md']) {
      if (!present.has(name.split('/')[0] ?? name)) continue;
      out.push({ abs: path.join(base, name), zone, group: 'project', priority: name === 'AGENTS.md' ? 92 : 95 });
    }
    if (present.has('.claude')) {
      for (const abs of listMarkdown(path.join(base, '.claude', 'rules'), list, '.md', true)) {
        out.push({ abs, zone, group: 'rules', priority: 85, scope: dir });
      }
    }
    if (present.has('.cursor')) {
      for (const abs of listMarkdown(path.join(base, '.cursor', 'rules'), list, '.mdc', false)) {
        out.push({ abs, zone, group: 'rules', priority: 80, scope: dir });
      }
    }
  }
  return out;
}

/** The files in play as seen from `scope` (relative to it), or all of them when there is no scope. */
function inScope(inPlay: readonly string[], scope: string | undefined): string[] {
  if (scope === undefined) return [...inPlay];
  return inPlay.filter((file) => file.startsWith(`${scope}/`)).map((file) => file.slice(scope.length + 1));
}

function ruleCandidates(workspace: string, home: string, list: List, zones: Zones): Candidate[] {
  const out: Candidate[] = [];
  const roots = [
    { dir: path.join(home, '.claude', 'rules'), zone: zones.user },
    { dir: path.join(workspace, '.claude', 'rules'), zone: zones.workspace },
  ];
  for (const { dir, zone } of roots) {
    for (const abs of listMarkdown(dir, list, '.md', true)) out.push({ abs, zone, group: 'rules', priority: 85 });
  }
  for (const abs of listMarkdown(path.join(workspace, '.github', 'instructions'), list, '.instructions.md', false)) {
    out.push({ abs, zone: zones.workspace, group: 'project', priority: 80 });
  }
  for (const abs of listMarkdown(path.join(workspace, '.cursor', 'rules'), list, '.mdc', false)) {
    out.push({ abs, zone: zones.workspace, group: 'rules', priority: 80 });
  }
  return out;
}

/** Whether a rule file applies: `paths` / `applyTo` / `globs` must match a file in play; `alwaysApply` wins. */
function applies(abs: string, data: Record<string, unknown>, inPlay: readonly string[]): boolean {
  if (abs.endsWith('.mdc')) {
    if (data.alwaysApply === true || data.alwaysApply === 'true') return true;
    const globs = globList(data.globs);
    return globs.length > 0 && matchesAny(globs, inPlay);
  }
  if (abs.endsWith('.instructions.md')) {
    const globs = globList(data.applyTo);
    return globs.length > 0 && matchesAny(globs, inPlay);
  }
  const globs = globList(data.paths);
  return globs.length === 0 || matchesAny(globs, inPlay);
}

export function createInstructionsSource(deps: SourceDeps, workspaces: Workspaces): ContextSource {
  const memo = new TrackedMemo<{ items: ContextItem[]; skipped: SkippedPath[] }>(deps);

  const frame = { name: 'instructions', timeoutMs: 3_000, answers: ['instructions.'] };
  return defineSource(workspaces, frame, async ({ ws, input }) => {
    const workspace = ws.root;
    const home = deps.homeDir;
    const named = ws.named(home, pathsInPlay(input.question));
    // Changed files only refine which scoped rules apply: do not let a slow status cost the instructions.
    const status = await Promise.race([
      ws.status().catch(() => undefined),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), STATUS_WAIT_MS).unref()),
    ]);
    const inPlay = [...new Set([...named.inside.map((m) => m.rel), ...(status?.changedFiles ?? [])])].sort();

    const asked = askedWords(input.question);
    return memo.get(`${workspace}|${inPlay.join('\0')}|${asked.join(' ')}`, async (tracker) => {
      const items: ContextItem[] = [];
      const skipped: SkippedPath[] = [];
      const emitted = new Set<string>();
      const label = (abs: string) => {
        if (abs === home || abs.startsWith(`${home}/`)) {
          if (!abs.startsWith(`${workspace}/`)) return `~/${path.relative(home, abs)}`;
        }
        return path.relative(workspace, abs).split(path.sep).join('/');
      };
      const emit = (abs: string, text: string, group: string, priority: number, why: string) => {
        const title = label(abs);
        const key = group === 'user' ? `instructions.user.${path.basename(abs)}` : `instructions.${group}.${title}`;
        // A long file goes by the sections the question is about, its other headings named.
        const chosen = instructionSections(text, asked, title);
        const capped = capHead(chosen?.text ?? text, MAX_INSTRUCTION_CHARS, `cat ${title}`);
        const rel = path.relative(workspace, abs);
        items.push({
          key,
          source: 'instructions',
          title,
          text: capped.text,
          priority,
          kind: 'text',
          why: chosen ? `${why}; ${chosen.kept} of its ${chosen.of} sections, those about the question` : why,
          ...(rel.startsWith('..') ? {} : { path: rel.split(path.sep).join('/') }),
          ...(capped.truncated || chosen ? { truncated: true } : {}),
        });
      };
      const guard = new FileGuard(deps.isNeverRead);
      const zones: Zones = {
        workspace: makeZone('the workspace', [workspace, ...deps.allowedRoots]),
        home: makeZone('~/.claude', [path.join(home, '.claude')]),
        user: makeZone('~/.claude', [path.parse(home).root]),
      };
      const list: List = (dir) => ws.listings.list(dir, tracker);
      const ignored = (rel: string) => ws.listings.ignored(rel);
      const all = [
        ...candidatesFor(workspace, home, zones),
        ...ruleCandidates(workspace, home, list, zones),
        ...nestedCandidates(workspace, inPlay, list, ignored, zones.workspace),
      ];
      for (const candidate of all) {
        tracker.track(candidate.abs);
        const title = label(candidate.abs);
        const read = guard.read(candidate.abs, candidate.zone, [title]);
        if (read.refused !== undefined) skipped.push({ path: title, reason: read.refused });
        const { text, real } = read;
        if (text === undefined || real === undefined) continue;
        if (emitted.has(real)) continue;
        if (candidate.group === 'rules' || candidate.abs.endsWith('.instructions.md')) {
          if (!applies(candidate.abs, parseFrontmatter(text).data, inScope(inPlay, candidate.scope))) continue;
        }
        emitted.add(real);
        const why = instructionReason(workspace, candidate);
        emit(candidate.abs, text, candidate.group, candidate.priority, why);
        const ctx = { guard, home, homeZone: zones.home, label, tracker, skipped, emitted };
        const imports = resolveImports(ctx, { abs: candidate.abs, zone: candidate.zone }, text, [real]);
        for (const imported of imports) {
          emit(imported.abs, imported.text, 'import', candidate.priority, `imported by ${title} (${why})`);
        }
      }
      return { items, skipped };
    });
  });
}

/** Grammar, which says nothing about which section of an instruction file is meant. */
const GRAMMAR = new Set(
  (
    'the and but for with from into about are was were been being does did done doing have has had having ' +
    'what which who whom whose where when why how there here all any some each every not only own same than too ' +
    'very can could should would will shall may might must just also please tell show explain give let see get got ' +
    'this that these those they them their our your its you me my we it is do so to of in on at by as an a or if i'
  ).split(' '),
);

/**
 * The question's words and names, which choose the sections of a long instruction file: every word but
 * grammar, the intent's own words too ("how do I run the tests" is what a commands section is about).
 */
function askedWords(question: Question): string[] {
  const words = new Set<string>();
  for (const token of question.text.match(/[A-Za-z][\w-]*/g) ?? []) {
    const word = token.toLowerCase();
    if (word.length >= 3 && !GRAMMAR.has(word) && words.size < 32) words.add(token);
  }
  for (const identifier of question.identifiers) words.add(identifier.term);
  for (const named of question.paths) words.add(named.token.split('/').at(-1) ?? named.token);
  return [...words].sort();
}

/** Why an instruction file is sent: whose it is, and for a nested or scoped one, the folder in play. */
function instructionReason(workspace: string, candidate: Candidate): string {
  const kind = candidate.group === 'rules' ? 'a rule file' : 'the instruction file';
  const rel = path.relative(workspace, path.dirname(candidate.abs)).split(path.sep).join('/');
  if (candidate.group === 'user' || rel.startsWith('..')) {
    return candidate.zone.label === '~/.claude'
      ? `${kind} of the user, for every project`
      : `${kind} of a folder above the workspace`;
  }
  // The folder it speaks for: its path up to `.claude/`, `.cursor/`, `.github/`.
  const segments = rel === '' ? [] : rel.split('/');
  const hidden = segments.findIndex((segment) => segment.startsWith('.'));
  const folder = candidate.scope ?? (hidden < 0 ? segments : segments.slice(0, hidden)).join('/');
  return folder === '' ? `${kind} of the project` : `${kind} of ${folder}/, a folder in play`;
}
