// A small line diff for the conversation view: what was added and removed in
// the context (or the forwarded messages) between two consecutive turns.
// Common head and tail are cut first, so the usual case (a context block that
// is byte-stable, or messages that only grow) costs almost nothing; the middle
// is an LCS table, bounded so a pathological pair cannot stall the page.

export type DiffLine = { op: 'same' | 'add' | 'remove'; text: string };

const MAX_LCS_CELLS = 4_000_000;

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;

  const same = (lines: string[]): DiffLine[] => lines.map((text) => ({ op: 'same', text }));
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  return [...same(a.slice(0, head)), ...diffMiddle(middleA, middleB), ...same(a.slice(a.length - tail))];
}

function diffMiddle(a: string[], b: string[]): DiffLine[] {
  if (a.length * b.length > MAX_LCS_CELLS) {
    return [
      ...a.map((text): DiffLine => ({ op: 'remove', text })),
      ...b.map((text): DiffLine => ({ op: 'add', text })),
    ];
  }
  const width = b.length + 1;
  // lengths[i * width + j] = LCS length of a[i..] and b[j..]
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i] ?? '' });
      i++;
      j++;
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      out.push({ op: 'remove', text: a[i] ?? '' });
      i++;
    } else {
      out.push({ op: 'add', text: b[j] ?? '' });
      j++;
    }
  }
  for (; i < a.length; i++) out.push({ op: 'remove', text: a[i] ?? '' });
  for (; j < b.length; j++) out.push({ op: 'add', text: b[j] ?? '' });
  return out;
}

export type DiffHunkLine = DiffLine | { op: 'skip'; count: number };

/** Keeps `context` unchanged lines around each change and folds the rest into a count. */
export function foldUnchanged(lines: DiffLine[], context = 2): DiffHunkLine[] {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((line, index) => {
    if (line.op === 'same') return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) keep[k] = true;
  });
  const out: DiffHunkLine[] = [];
  let skipped = 0;
  lines.forEach((line, index) => {
    if (keep[index]) {
      if (skipped > 0) out.push({ op: 'skip', count: skipped });
      skipped = 0;
      out.push(line);
    } else {
      skipped++;
    }
  });
  if (skipped > 0) out.push({ op: 'skip', count: skipped });
  return out;
}

export function diffStats(lines: DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.op === 'add') added++;
    else if (line.op === 'remove') removed++;
  }
  return { added, removed };
}
