// Reading the documentation as a test needs it: the pages, their fenced blocks,
// their tables and their links. Plain line scanning: the pages are ours, and a
// block or table these helpers cannot find fails the test that asked for it.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every page of docs/, as paths relative to the repository. */
export function documentationFiles(): string[] {
  const pages = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...pages];
}

export function readDoc(relative: string): string {
  return readFileSync(path.join(ROOT, relative), 'utf8');
}

/** The first fenced block after the line that starts with `label` (`**openai (Node)**`). */
export function fencedBlockAfter(text: string, label: string, where = 'the page'): string {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.startsWith(label));
  assert.ok(at >= 0, `${where} has a line starting with ${label}`);
  const rest = lines.slice(at + 1);
  const open = rest.findIndex((line) => line.startsWith('```'));
  const close = rest.findIndex((line, i) => i > open && line.startsWith('```'));
  assert.ok(open >= 0 && close > open, `a fenced block follows ${label} in ${where}`);
  return `${rest.slice(open + 1, close).join('\n')}\n`;
}

/** Every fenced block with its language tag (`sh`, `js`, `json` …), in page order. */
export function fencedBlocks(text: string): { lang: string; body: string }[] {
  const blocks: { lang: string; body: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i] ?? '');
    if (!open) continue;
    const close = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    assert.ok(close > i, `an unclosed fenced block at line ${i + 1}`);
    blocks.push({ lang: open[1] ?? '', body: `${lines.slice(i + 1, close).join('\n')}\n` });
    i = close;
  }
  return blocks;
}

/** Text outside fenced blocks (links and tables are looked for there only). */
export function prose(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
}

/** The rows of the table whose header row starts with `header` (`| setting | flag`), as cells. */
export function tableRows(text: string, header: string, where = 'the page'): string[][] {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.startsWith(header));
  assert.ok(at >= 0, `${where} has a table whose header starts with ${header}`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(splitRow(line));
  }
  return rows;
}

/** The cells of one table row; a `|` inside backticks (`ollama\|openai`) is escaped and stays in its cell. */
export function splitRow(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replaceAll('\\|', '|'));
}

/** The backticked spans of a cell: `--host` → --host. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6}\s+(.+)$/gm)) anchors.add(anchorOf(m[1] ?? ''));
  return anchors;
}
