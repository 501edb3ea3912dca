// Cutting text at line boundaries, always saying what was cut and how to get it.

export interface Capped {
  text: string;
  truncated: boolean;
}

/** Keeps whole lines from the top while they fit in `maxChars`, then a tail line naming the command for the rest. */
export function capHead(text: string, maxChars: number, command: string): Capped {
  if (text.length <= maxChars) return { text, truncated: false };
  const lines = text.split('\n');
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > maxChars) break;
    kept.push(line);
    size += line.length + 1;
  }
  const more = lines.length - kept.length;
  return { text: `${kept.join('\n')}\n… ${more} more lines; run \`${command}\` to see all`, truncated: true };
}

/** Keeps the first `maxLines` lines (code: the head matters). */
export function headLines(text: string, maxLines: number, hint: string): Capped {
  const lines = text.split('\n');
  if (lines.length <= maxLines) return { text, truncated: false };
  const rest = lines.length - maxLines;
  return { text: `${lines.slice(0, maxLines).join('\n')}\n… ${rest} more lines (${hint})`, truncated: true };
}

/** Keeps the last `maxLines` lines (logs and test output: the end holds the failure). */
export function tailLines(text: string, maxLines: number, hint: string): Capped {
  const lines = text.split('\n');
  if (lines.length <= maxLines) return { text, truncated: false };
  const cut = lines.length - maxLines;
  return { text: `… ${cut} earlier lines (${hint})\n${lines.slice(cut).join('\n')}`, truncated: true };
}
