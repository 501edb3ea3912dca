// A long instruction file (a 20 KB AGENTS.md of release steps, review tone and
// benchmark traps) sent by the parts the question is about: its head (what
// comes before the first heading), the sections whose words the question says,
// and the headings of the rest, so the model knows what else the file covers
// and where to read it. A short file goes whole, as before: this only stops one
// file from taking a thousand tokens of every request whatever is asked.

/** A file up to this many characters (about 1,000 tokens) goes whole. */
export const WHOLE_INSTRUCTION_CHARS = 4_000;

/** Characters of the head kept when the first heading comes late. */
const HEAD_CHARS = 1_200;

/** Characters of chosen sections, at most (the best first, then in the file's order). */
const CHOSEN_CHARS = 2_400;

/** Headings of the sections left out named, at most. */
const MAX_LEFT_NAMED = 20;

const HEADING = /^#{1,6}\s+\S/;
const FENCE = /^\s*(?:```|~~~)/;

interface Section {
  heading: string;
  /** The heading's level (`##` → 2). */
  level: number;
  text: string;
  at: number;
  /** The index of the nearest section before it of a lower level (its parent), -1 when none. */
  parent: number;
}

/** A word as the file and the question may both spell it: lower case, a plural's or tense's ending off. */
export function stem(word: string): string {
  const lower = word.toLowerCase();
  const cut = lower.replace(/(?:ing|ed|es|s)$/, '').replace(/e$/, '');
  return cut.length >= 3 ? cut : lower;
}

/**
 * How often each of the `wanted` stems occurs among a text's words, camelCase parts counted as well as the whole;
 * undefined when none does. Only the wanted ones are kept: a file of many small sections is not one map of all
 * its words per section.
 */
function stemsOf(text: string, wanted: ReadonlySet<string>): Map<string, number> | undefined {
  let out: Map<string, number> | undefined;
  const add = (token: string) => {
    const key = stem(token);
    if (!wanted.has(key)) return;
    out ??= new Map<string, number>();
    out.set(key, (out.get(key) ?? 0) + 1);
  };
  for (const token of text.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) {
    add(token);
    for (const part of token.split(/(?<=[a-z0-9])(?=[A-Z])/)) if (part !== token) add(part);
  }
  return out;
}

function split(text: string): { head: string; sections: Section[] } {
  const lines = text.split('\n');
  const sections: Omit<Section, 'parent'>[] = [];
  const head: string[] = [];
  let current: { heading: string; level: number; lines: string[]; at: number } | undefined;
  let fenced = false;
  for (const line of lines) {
    if (FENCE.test(line)) fenced = !fenced;
    if (!fenced && HEADING.test(line)) {
      if (current) sections.push({ ...current, text: current.lines.join('\n') });
      const level = /^#+/.exec(line)?.[0].length ?? 1;
      current = { heading: line.replace(/^#+\s+/, '').trim(), level, lines: [line], at: sections.length };
      continue;
    }
    if (current) current.lines.push(line);
    else head.push(line);
  }
  if (current) sections.push({ ...current, text: current.lines.join('\n') });
  // A file's one title (`# AGENTS.md` above `##` sections) and the paragraph under it are its head.
  const first = sections[0];
  const titled =
    first !== undefined &&
    head.join('').trim() === '' &&
    sections.every((section, i) => i === 0 || section.level > first.level);
  const out = titled && first ? sections.slice(1).map((section, i) => ({ ...section, at: i })) : sections;
  return { head: titled && first ? first.text : head.join('\n'), sections: withParents(out) };
}

/**
 * Each section's parent, found once for all with a stack of the open levels: looking back from each chosen
 * section would cost the sections before it each time (a 2 MB file holds hundreds of thousands of headings).
 */
function withParents(sections: Omit<Section, 'parent'>[]): Section[] {
  const open: number[] = [];
  return sections.map((section, i) => {
    while (open.length > 0 && (sections[open.at(-1) as number]?.level ?? 0) >= section.level) open.pop();
    const parent = open.at(-1) ?? -1;
    open.push(i);
    return { ...section, parent };
  });
}

/** The head, cut at a line boundary when it is long. */
function headOf(head: string): string {
  if (head.length <= HEAD_CHARS) return head.trimEnd();
  const cut = head.lastIndexOf('\n', HEAD_CHARS);
  return `${head.slice(0, cut > 0 ? cut : HEAD_CHARS).trimEnd()}\n…`;
}

/**
 * The parts of a long instruction file a question is about, or undefined when the file goes whole (short, or
 * without two headings to choose between). `words` are the question's words and names. A word found in half
 * the sections or more says nothing about which to send.
 */
export function instructionSections(
  text: string,
  words: readonly string[],
  label: string,
): { text: string; kept: number; of: number } | undefined {
  if (text.length <= WHOLE_INSTRUCTION_CHARS) return undefined;
  const { head, sections } = split(text);
  if (sections.length < 2) return undefined;
  // The question's words whole: a name's parts (`handle` of `handleIntersectionResults`) are not what it asks.
  const wanted = new Set(words.map(stem));
  const stems = sections.map((section) => stemsOf(section.text, wanted));
  const headings = sections.map((section) => stemsOf(section.heading, wanted));
  // A word rare among the sections says more about which one is meant; one said in its heading, most.
  const weight = new Map<string, number>();
  for (const word of wanted) {
    const found = stems.filter((counts) => counts?.has(word)).length;
    if (found > 0) weight.set(word, Math.log(1 + sections.length / found));
  }
  const scoreOf = (i: number) => {
    let score = 0;
    for (const [word, w] of weight) {
      const count = stems[i]?.get(word) ?? 0;
      score += w * (Math.min(count, 3) + (headings[i]?.has(word) ? 3 : 0));
    }
    return score;
  };
  const scored = sections.map((section, i) => ({ section, score: scoreOf(i) })).filter((entry) => entry.score > 0);
  // A loop, not a spread into Math.max: one argument a section overflows the stack.
  let best = 0;
  for (const entry of scored) best = Math.max(best, entry.score);
  const chosen = new Set<Section>();
  let room = CHOSEN_CHARS;
  for (const { section, score } of scored.sort((a, b) => b.score - a.score || a.section.at - b.section.at)) {
    // Only the sections nearly as much about the question as the best: a word said once in passing is not.
    if (score < best / 2 || section.text.length > room) continue;
    chosen.add(section);
    room -= section.text.length;
  }
  const parts = [headOf(head)];
  // Parents already looked at, and the heading lines already shown (two parents may read the same).
  const seen = new Set<Section>();
  const shown = new Set<string>();
  for (const section of sections) {
    if (!chosen.has(section)) continue;
    // A subsection chosen without its parent keeps the parent's heading, which says what it belongs to.
    const parent = sections[section.parent];
    if (parent && !chosen.has(parent) && !seen.has(parent)) {
      seen.add(parent);
      const end = parent.text.indexOf('\n');
      const line = end < 0 ? parent.text : parent.text.slice(0, end);
      if (!shown.has(line)) parts.push(line);
      shown.add(line);
    }
    parts.push(section.text.trimEnd());
  }
  const left = sections.filter((section) => !chosen.has(section)).map((section) => section.heading.slice(0, 60));
  if (left.length > 0) {
    const named = left.slice(0, MAX_LEFT_NAMED).join('; ') + (left.length > MAX_LEFT_NAMED ? '; …' : '');
    parts.push(`… ${left.length} more section(s), not about the question: ${named} (run \`cat ${label}\` to see all)`);
  }
  return { text: parts.filter((part) => part.trim() !== '').join('\n\n'), kept: chosen.size, of: sections.length };
}
