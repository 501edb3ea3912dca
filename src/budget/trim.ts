// Trimming one context item to a token budget, at line boundaries, with a
// visible marker where lines were cut. The item's kind picks the strategy:
// code/text keep the head, logs keep the tail, diffs lose whole hunks, trees
// are collapsed by depth first. Error lines and the failing stack frame are
// kept before anything else; then, when the question names identifiers or
// paths, the hunks and blocks (functions, classes) that mention them
// (relevance.ts), then the head or the tail.

import { withText } from '../shared/contentHash.ts';
import type { ContextItem } from '../shared/types.ts';
import { selectDiffLines } from './diffHunks.ts';
import {
  addRanges,
  emptySelection,
  type LineRange,
  lineCosts,
  type Selection,
  splitLines,
  trimMarker,
  verifySelection,
} from './lineSelection.ts';
import { type Matcher, relevantRanges } from './relevance.ts';
import type { TokenCounter } from './tokenCounter.ts';
import { selectTreeLines, treeIndent } from './treeDepth.ts';

export interface TrimResult {
  /** The item (unchanged when it fitted, else with trimmed text and `truncated: true`); null when dropped. */
  item: ContextItem | null;
  trimmedLines: number;
  /** Tokens of the returned text (0 when dropped). */
  tokens: number;
}

const ERROR_WORDS = /error|exception|\bfailed\b|\bfailure\b|\bpanic|\btraceback\b|\bfatal\b/i;
const FAIL_WORD = /\bFAIL\b/;

export function isErrorLine(line: string): boolean {
  return ERROR_WORDS.test(line) || FAIL_WORD.test(line);
}

/** A truncation note written by a source (`… 120 more lines; run \`git diff\` to see all`), not by us. */
function isSourceNote(line: string): boolean {
  return line.startsWith('… ') && !/^… \[\d+ lines? trimmed\]$/.test(line);
}

function single(index: number): LineRange {
  return { start: index, end: index };
}

function indices(count: number, fromEnd: boolean): number[] {
  const out = Array.from({ length: count }, (_, i) => i);
  return fromEnd ? out.reverse() : out;
}

/** Lines nearest the anchor first, the line before winning ties: the code around a failing frame. */
function aroundAnchor(count: number, anchor: number): number[] {
  const out = [anchor];
  for (let d = 1; out.length < count; d++) {
    if (anchor - d >= 0) out.push(anchor - d);
    if (anchor + d < count) out.push(anchor + d);
  }
  return out;
}

/** Keyword-first strategy for text, code, logs and stack-trace items. */
function selectPlainLines(
  item: ContextItem,
  lines: string[],
  costs: number[],
  budget: number,
  markerCost: number,
  matches: Matcher,
) {
  const selection: Selection = emptySelection(lines.length);
  const isStackTrace = item.source === 'stacktrace';
  const tail = item.kind === 'log';
  const options = { costs, budget, markerCost };

  // A stack-trace excerpt (its source marks the segments): the failing line first, then its header
  // line (which frame, which file), then the code around it.
  const frames = (item.segments ?? []).filter((segment) => segment.kind === 'frame');
  addRanges(selection, frames, options);
  const header = item.segments?.find((segment) => segment.kind === 'header');
  if (frames.length > 0 && header !== undefined) addRanges(selection, [header], options);
  // A source that already cut its text left a `… N more lines; run …` note: keep it, it says how to see the rest.
  const notes = indices(lines.length, false).filter((i) => isSourceNote(lines[i] ?? ''));
  addRanges(selection, notes.map(single), options);
  // What the question names: the block around each mention, or the mention alone.
  addRanges(selection, relevantRanges(lines, matches), options);
  const keepErrors = item.kind === 'log' || item.kind === 'text' || (isStackTrace && frames.length === 0);
  if (keepErrors) {
    const errors = indices(lines.length, tail).filter((i) => isErrorLine(lines[i] ?? ''));
    addRanges(selection, errors.map(single), options);
  }
  const anchor = frames[0]?.start;
  const fill = anchor !== undefined ? aroundAnchor(lines.length, anchor) : indices(lines.length, tail);
  addRanges(selection, fill.map(single), { ...options, stopAtFirstMiss: true });
  return selection;
}

/** Tree markers carry the hidden lines' indentation: price the widest one. */
function treeMarkerCost(lines: string[], counter: TokenCounter): number {
  const widest = lines.map(treeIndent).reduce((a, b) => (b.length > a.length ? b : a), '');
  return counter.count(`${widest}${trimMarker(lines.length)}\n`);
}

const NOTHING: Matcher = () => false;

/**
 * Trims `item` so that its text counts at most `maxTokens`. Returns the item
 * unchanged when it already fits, and `item: null` when not even one line plus
 * the marker fits (the caller reports the drop). `matches` tells the lines that
 * mention the question's terms (questionTerms.ts); they are kept first.
 */
export function trimItem(
  item: ContextItem,
  maxTokens: number,
  counter: TokenCounter,
  matches: Matcher = NOTHING,
): TrimResult {
  const whole = counter.count(item.text);
  if (whole <= maxTokens) return { item, trimmedLines: 0, tokens: whole };
  const budget = Math.floor(maxTokens);
  const lines = splitLines(item.text);
  const { costs, markerCost: plainMarkerCost } = lineCosts(lines, counter);
  const markerCost = item.kind === 'tree' ? treeMarkerCost(lines, counter) : plainMarkerCost;
  if (budget <= 0) return { item: null, trimmedLines: lines.length, tokens: 0 };

  let selection: Selection;
  let indentOf: ((line: string) => string) | undefined;
  // A diff whose hunks were not given (or no longer line up after a mask) is trimmed as plain lines.
  if (item.kind === 'diff' && item.segments)
    selection = selectDiffLines(lines, item.segments, costs, budget, markerCost, matches);
  else if (item.kind === 'tree') {
    indentOf = treeIndent;
    selection = selectTreeLines(lines, costs, budget, markerCost);
  } else selection = selectPlainLines(item, lines, costs, budget, markerCost, matches);

  const fitted = verifySelection(lines, selection, costs, budget, counter, indentOf);
  if (fitted === null) return { item: null, trimmedLines: lines.length, tokens: 0 };
  return {
    item: { ...withText(item, fitted.text), truncated: true },
    trimmedLines: fitted.trimmedLines,
    tokens: fitted.tokens,
  };
}
