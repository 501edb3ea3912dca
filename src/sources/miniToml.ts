// A deliberately small TOML reader for the few manifest keys we show
// (pyproject.toml, Cargo.toml). No TOML parser is installed yet (`smol-toml`
// would be the one to add); until then this reads exactly:
//   - table headers `[a.b]` (array-of-tables `[[a]]` are skipped with their keys),
//   - `key = value` where value is a basic or literal string, a number, a
//     boolean, or an array of those (which may span lines),
//   - dotted and quoted keys (`a.b = 1`, `"x" = 1`).
// Anything else (inline tables, multi-line strings, dates) is stored as its raw
// text, so a value we do not understand is shown as written or not at all,
// never misread into another key.

export type TomlValue = string | number | boolean | TomlValue[];
export type TomlTable = { [key: string]: TomlValue | TomlTable };

function unquoteKey(part: string): string {
  const p = part.trim();
  if ((p.startsWith('"') && p.endsWith('"')) || (p.startsWith("'") && p.endsWith("'"))) return p.slice(1, -1);
  return p;
}

/** Splits `a."b.c".d` at dots outside quotes. */
function keyPath(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (const ch of text) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === '.') {
      parts.push(unquoteKey(current));
      current = '';
    } else current += ch;
  }
  parts.push(unquoteKey(current));
  return parts;
}

/** Strips a `#` comment that is outside quotes. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '#') return line.slice(0, i);
  }
  return line;
}

/** Brackets still open in `text` (outside quotes): an array value continues on the next line. */
function openBrackets(text: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']') depth--;
  }
  return depth;
}

function parseValue(raw: string): TomlValue {
  const text = raw.trim();
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2 && !text.startsWith('"""')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }
  if (text.startsWith("'") && text.endsWith("'") && text.length >= 2 && !text.startsWith("'''")) {
    return text.slice(1, -1);
  }
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^[+-]?\d[\d_]*(\.\d+)?$/.test(text)) return Number(text.replace(/_/g, ''));
  if (text.startsWith('[') && text.endsWith(']')) {
    const items: TomlValue[] = [];
    let current = '';
    let depth = 0;
    let quote: string | undefined;
    for (const ch of text.slice(1, -1)) {
      if (quote) {
        if (ch === quote) quote = undefined;
      } else if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '[' || ch === '{') depth++;
      else if (ch === ']' || ch === '}') depth--;
      else if (ch === ',' && depth === 0) {
        if (current.trim() !== '') items.push(parseValue(current));
        current = '';
        continue;
      }
      current += ch;
    }
    if (current.trim() !== '') items.push(parseValue(current));
    return items;
  }
  return text;
}

function tableAt(root: TomlTable, path: string[]): TomlTable | undefined {
  let table = root;
  for (const key of path) {
    const next = table[key];
    if (next === undefined) table[key] = {};
    else if (typeof next !== 'object' || Array.isArray(next)) return undefined;
    table = table[key] as TomlTable;
  }
  return table;
}

export function parseMiniToml(text: string): TomlTable {
  const root: TomlTable = {};
  let table: TomlTable | undefined = root;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = stripComment(lines[i] ?? '').trim();
    if (line === '') continue;
    if (line.startsWith('[[')) {
      // Array-of-tables: its keys are not read (see the header comment), but its parent exists.
      const end = line.lastIndexOf(']]');
      if (end > 2) tableAt(root, keyPath(line.slice(2, end)).slice(0, -1));
      table = undefined;
      continue;
    }
    if (line.startsWith('[')) {
      const end = line.lastIndexOf(']');
      table = end > 0 ? tableAt(root, keyPath(line.slice(1, end))) : undefined;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0 || table === undefined) continue;
    let value = line.slice(eq + 1);
    const fence = /^\s*("""|''')/.exec(value)?.[1];
    if (fence !== undefined && value.split(fence).length < 3) {
      // A multi-line string: its lines are the value, never keys.
      while (i + 1 < lines.length && !(lines[i + 1] ?? '').includes(fence)) value += `\n${lines[++i]}`;
      if (i + 1 < lines.length) value += `\n${lines[++i]}`;
    }
    while (openBrackets(value) > 0 && i + 1 < lines.length) {
      i++;
      value += ` ${stripComment(lines[i] ?? '').trim()}`;
    }
    const path = keyPath(line.slice(0, eq));
    const last = path.pop();
    const target = tableAt(table, path);
    if (target && last !== undefined) target[last] = parseValue(value);
  }
  return root;
}

/** `get(t, 'project', 'name')`: the value at a key path, undefined when any step is missing. */
export function tomlGet(table: TomlTable, ...path: string[]): TomlValue | TomlTable | undefined {
  let node: TomlValue | TomlTable | undefined = table;
  for (const key of path) {
    if (node === undefined || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as TomlTable)[key];
  }
  return node;
}
