// Frontmatter for rule files, parsed leniently: YAML first, then line by line,
// because real files say `globs: **/*.go`, which is not valid YAML.

import { parse as parseYaml } from 'yaml';

export interface Frontmatter {
  data: Record<string, unknown>;
  body: string;
}

function parseLines(block: string): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  let listKey: string | undefined;
  for (const line of block.split('\n')) {
    const item = /^\s+-\s*(.*)$/.exec(line);
    if (item && listKey) {
      const list = Array.isArray(data[listKey]) ? (data[listKey] as unknown[]) : [];
      list.push(unquote(item[1] ?? ''));
      data[listKey] = list;
      continue;
    }
    const pair = /^([\w-]+):\s*(.*)$/.exec(line);
    if (!pair?.[1]) continue;
    const value = (pair[2] ?? '').trim();
    listKey = value === '' ? pair[1] : undefined;
    data[pair[1]] = value === '' ? [] : value === 'true' ? true : value === 'false' ? false : unquote(value);
  }
  return data;
}

function unquote(value: string): string {
  const trimmed = value.trim();
  return /^(['"]).*\1$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}

export function parseFrontmatter(text: string): Frontmatter {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { data: {}, body: text };
  const block = match[1] ?? '';
  const body = text.slice(match[0].length);
  try {
    const parsed: unknown = parseYaml(block);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return { data: parsed as Record<string, unknown>, body };
    }
  } catch {
    // Not valid YAML: fall through to the line parser.
  }
  return { data: parseLines(block), body };
}

/** A glob field as a list: `a, b`, `[a, b]` or a YAML list; empty when absent. */
export function globList(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  return raw
    .flatMap((entry) => (typeof entry === 'string' ? unquote(entry).split(',') : []))
    .map((glob) => unquote(glob.trim().replace(/^\[|\]$/g, '')))
    .filter((glob) => glob !== '');
}
