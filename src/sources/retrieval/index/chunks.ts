// A file cut into chunks along its structure, so the full-text index ranks a
// definition, a section or a manifest table rather than a whole file: a code
// file at its top-level statements (a function, a class, a block of imports),
// Markdown at its headings, TOML/INI at its tables, YAML at its top-level keys.
// Small neighbours are merged and long blocks split, so every chunk stays
// between a few lines and a bounded size. Pure: the lines come in.

export interface Chunk {
  /** 0-based, inclusive. */
  start: number;
  end: number;
}

export interface ChunkLimits {
  /** A chunk shorter than this is merged into the next one. */
  minLines: number;
  /** A block longer than this is split (at a blank line near the limit when there is one). */
  maxLines: number;
  /** Characters per chunk, at most, lines cut included. */
  maxChars: number;
}

export const defaultChunkLimits: ChunkLimits = { minLines: 6, maxLines: 80, maxChars: 8_000 };

const MARKDOWN = /\.(md|mdx|markdown|rst|adoc|txt)$/i;
const TABLES = /\.(toml|ini|cfg|conf|properties)$|(^|\/)(setup\.cfg|tox\.ini|\.editorconfig)$/i;
const YAML = /\.ya?ml$/i;

/** Where a new top-level unit starts, by the kind of file. */
function boundaryTest(rel: string): (line: string, previous: string | undefined) => boolean {
  if (MARKDOWN.test(rel)) return (line) => /^#{1,6}\s|^[=-]{3,}\s*$/.test(line);
  if (TABLES.test(rel)) return (line) => /^\s*\[[^\]]+\]\s*$/.test(line);
  if (YAML.test(rel)) return (line) => /^[\w"'.-][^:#]*:/.test(line);
  // Code and anything else: a line at the left margin that starts a statement, after a blank line or a
  // closer (so a multi-line signature or a continued expression is not cut).
  return (line, previous) =>
    /^[A-Za-z_$@#[<]/.test(line) &&
    (previous === undefined || previous.trim() === '' || /^[})\]]/.test(previous) || /^(end|fi|done)\b/.test(previous));
}

export function chunkLines(rel: string, lines: readonly string[], limits: ChunkLimits = defaultChunkLimits): Chunk[] {
  if (lines.length === 0) return [];
  const isBoundary = boundaryTest(rel);
  // Units: from one boundary to the line before the next.
  const starts: number[] = [0];
  for (let i = 1; i < lines.length; i++) {
    if (isBoundary(lines[i] ?? '', lines[i - 1])) starts.push(i);
  }
  const chunks: Chunk[] = [];
  let open: Chunk | undefined;
  let openChars = 0;
  const close = () => {
    if (open) chunks.push(open);
    open = undefined;
    openChars = 0;
  };
  for (let u = 0; u < starts.length; u++) {
    const start = starts[u] as number;
    const end = (starts[u + 1] ?? lines.length) - 1;
    for (const piece of splitLong(lines, start, end, limits)) {
      const chars = charsOf(lines, piece.start, piece.end);
      // Merge into the open chunk while it is small and the result stays within the limits.
      if (
        open &&
        open.end - open.start + 1 < limits.minLines &&
        piece.end - open.start + 1 <= limits.maxLines &&
        openChars + chars <= limits.maxChars
      ) {
        open.end = piece.end;
        openChars += chars;
        continue;
      }
      close();
      open = { ...piece };
      openChars = chars;
    }
  }
  close();
  return chunks;
}

function charsOf(lines: readonly string[], start: number, end: number): number {
  let chars = 0;
  for (let i = start; i <= end; i++) chars += (lines[i]?.length ?? 0) + 1;
  return chars;
}

/** A unit cut into pieces of at most maxLines lines and maxChars characters, at blank lines where possible. */
function splitLong(lines: readonly string[], start: number, end: number, limits: ChunkLimits): Chunk[] {
  const pieces: Chunk[] = [];
  let from = start;
  while (from <= end) {
    let to = from;
    let chars = 0;
    let lastBlank = -1;
    while (to <= end && to - from < limits.maxLines) {
      const size = (lines[to]?.length ?? 0) + 1;
      if (chars + size > limits.maxChars && to > from) break;
      chars += size;
      if ((lines[to] ?? '').trim() === '') lastBlank = to;
      to++;
    }
    // `to` is one past the piece; prefer ending at a blank line in the piece's last quarter.
    let last = to - 1;
    if (to <= end && lastBlank > from + Math.floor((to - from) * 0.75)) last = lastBlank;
    pieces.push({ start: from, end: last });
    from = last + 1;
  }
  return pieces;
}
