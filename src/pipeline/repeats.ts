// Context is worth its tokens only once. Two kinds of repeats are left out
// before the budget sees the items:
//
// - what the client already sent: coding agents put AGENTS.md, the
//   environment and file contents in their own system prompt, and users paste
//   files; an item whose lines the messages already hold is not sent again;
// - what another item already sends: the same file can be collected as a
//   named file, a changed file, a definition, an outline and a retrieval
//   region. When a file goes whole, the other items of that path (its diff and
//   a stack frame's excerpt excepted: they say where) are left out; otherwise an item whose lines
//   a higher-priority item of the same path already holds all is, and of a
//   retrieval item (regions headed `@@ N @@`) the regions already held are.
//
// Pure and linear: lines are compared trimmed, through sets.

import { withText } from '../shared/contentHash.ts';
import { messageText } from '../shared/messageText.ts';
import type { ChatMessage, ContextItem } from '../shared/types.ts';

export interface Repeat {
  key: string;
  source: string;
  reason: string;
}

/** Lines shorter than this (`}`, `return x`, blank) say too little to tell one text from another. */
const MIN_LINE = 8;
/** Share of an item's lines found elsewhere that makes it a repeat. */
const REPEAT_SHARE = 0.9;
/**
 * Characters of the client's messages looked at, at most (the messages are forwarded whole
 * anyway): an agent's system prompt is 25–100 kB, and the comparison runs on the event loop,
 * so a 10 MB body must not hold it (8 MB took ~270 ms here, 1 MB ~35 ms).
 */
const MAX_MESSAGE_CHARS = 1024 * 1024;

function significantLines(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    // Our own markers (`@@ 12 @@`, `… 40 more lines`) are not content.
    if (line.length < MIN_LINE || line.startsWith('@@ ') || line.startsWith('… ')) continue;
    out.push(line);
  }
  return out;
}

function messageLines(messages: readonly ChatMessage[]): Set<string> {
  const lines = new Set<string>();
  let chars = 0;
  for (const message of messages) {
    const text = messageText(message);
    chars += text.length;
    if (chars > MAX_MESSAGE_CHARS) break;
    for (const line of significantLines(text)) lines.add(line);
  }
  return lines;
}

function repeated(lines: readonly string[], seen: ReadonlySet<string>, share = REPEAT_SHARE): boolean {
  if (lines.length === 0) return false;
  let found = 0;
  for (const line of lines) if (seen.has(line)) found++;
  return found / lines.length >= share;
}

/** `@@ 12 @@` starts a region of a file (the retrieval source's items). */
const REGION_HEAD = /^@@ \d+ @@$/;

/**
 * The item without the regions whose lines `seen` already holds, or undefined
 * when none is left. An item without regions is all or nothing.
 */
function withoutSeenRegions(
  item: ContextItem,
  own: readonly string[],
  seen: ReadonlySet<string>,
): ContextItem | undefined {
  const lines = item.text.split('\n');
  if (!lines.some((line) => REGION_HEAD.test(line))) return repeated(own, seen, 1) ? undefined : item;
  const regions: string[][] = [];
  for (const line of lines) {
    if (REGION_HEAD.test(line) || regions.length === 0) regions.push([line]);
    else regions.at(-1)?.push(line);
  }
  const kept = regions.filter((region) => !repeated(significantLines(region.join('\n')), seen, 1));
  if (kept.length === 0) return undefined;
  if (kept.length === regions.length) return item;
  return withText(item, kept.map((region) => region.join('\n')).join('\n'));
}

/** A file item that holds its whole file (the files source's named or changed files, uncut). */
const isWholeFile = (item: ContextItem) => item.source === 'files' && item.path !== undefined && !item.truncated;

export function withoutRepeats(
  items: readonly ContextItem[],
  messages: readonly ChatMessage[],
): { items: ContextItem[]; repeats: Repeat[] } {
  const repeats: Repeat[] = [];
  const sent = messageLines(messages);
  const lines = new Map<ContextItem, string[]>(items.map((item) => [item, significantLines(item.text)]));
  const kept = items.filter((item) => {
    if (!repeated(lines.get(item) ?? [], sent)) return true;
    repeats.push({ key: item.key, source: item.source, reason: "already in the client's messages" });
    return false;
  });

  // Per path, best first: what a higher-priority item of the same file already holds is not sent twice.
  const byPath = new Map<string, ContextItem[]>();
  for (const item of kept) {
    // A diff and a stack frame's excerpt say where (what changed, where it failed): never a repeat of the file.
    if (item.path === undefined || item.kind === 'diff' || item.source === 'stacktrace') continue;
    const group = byPath.get(item.path);
    if (group) group.push(item);
    else byPath.set(item.path, [item]);
  }
  const dropped = new Set<ContextItem>();
  const replaced = new Map<ContextItem, ContextItem>();
  for (const group of byPath.values()) {
    if (group.length < 2) continue;
    group.sort((a, b) => Number(isWholeFile(b)) - Number(isWholeFile(a)) || b.priority - a.priority);
    const first = group[0] as ContextItem;
    if (isWholeFile(first)) {
      for (const other of group.slice(1)) {
        dropped.add(other);
        repeats.push({ key: other.key, source: other.source, reason: `${first.key} sends the whole file` });
      }
      continue;
    }
    const seen = new Set<string>();
    for (const item of group) {
      const own = lines.get(item) ?? [];
      const rest = seen.size > 0 ? withoutSeenRegions(item, own, seen) : item;
      if (rest === undefined) {
        dropped.add(item);
        repeats.push({ key: item.key, source: item.source, reason: 'its lines are in another item of the same file' });
        continue;
      }
      if (rest !== item) replaced.set(item, rest);
      for (const line of own) seen.add(line);
    }
  }
  return { items: kept.filter((item) => !dropped.has(item)).map((item) => replaced.get(item) ?? item), repeats };
}
