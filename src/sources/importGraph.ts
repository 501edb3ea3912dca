// Import lines for TS/JS, Python, Go, Rust and Java, reduced to module names,
// so the stats source can rank the most imported modules. Relative imports
// are resolved to workspace paths (without extension) so `./util` and
// `../lib/util` from different folders count as the same module.

import path from 'node:path';
import { byExtension } from './byExtension.ts';

const LANGUAGES: Record<string, string> = {
  '.ts': 'TypeScript',
  '.tsx': 'TypeScript',
  '.mts': 'TypeScript',
  '.cts': 'TypeScript',
  '.js': 'JavaScript',
  '.jsx': 'JavaScript',
  '.mjs': 'JavaScript',
  '.cjs': 'JavaScript',
  '.py': 'Python',
  '.go': 'Go',
  '.rs': 'Rust',
  '.java': 'Java',
  '.kt': 'Kotlin',
  '.scala': 'Scala',
  '.c': 'C',
  '.h': 'C',
  '.cc': 'C++',
  '.cpp': 'C++',
  '.hpp': 'C++',
  '.cs': 'C#',
  '.rb': 'Ruby',
  '.php': 'PHP',
  '.swift': 'Swift',
  '.sh': 'Shell',
  '.bash': 'Shell',
  '.sql': 'SQL',
  '.md': 'Markdown',
  '.json': 'JSON',
  '.yaml': 'YAML',
  '.yml': 'YAML',
  '.toml': 'TOML',
  '.html': 'HTML',
  '.css': 'CSS',
  '.scss': 'CSS',
  '.vue': 'Vue',
  '.svelte': 'Svelte',
};

export function languageOf(file: string): string | undefined {
  return byExtension(LANGUAGES, file);
}

const PATTERNS: Record<string, RegExp[]> = {
  TypeScript: [
    /^\s*import\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/,
    /^\s*export\s+[^'"]*?\s+from\s+['"]([^'"]+)['"]/,
  ],
  Python: [/^\s*from\s+([\w.]+)\s+import\b/, /^\s*import\s+([\w.]+)/],
  Go: [/^\s*import\s+(?:\w+\s+)?"([^"]+)"/, /^\s+(?:\w+\s+)?"([^"]+)"\s*$/],
  Rust: [/^\s*(?:pub\s+)?use\s+((?:crate|super|self|\w+)(?:::\w+)*)/, /^\s*extern\s+crate\s+(\w+)/],
  Java: [/^\s*import\s+(?:static\s+)?([\w.]+?)(?:\.\*)?;/],
};
PATTERNS.JavaScript = PATTERNS.TypeScript ?? [];
PATTERNS.Kotlin = PATTERNS.Java ?? [];

/**
 * A word every import pattern of a language needs on its line; lines without
 * one are not cut out of the text at all (most lines of a file). Go's import
 * blocks hold bare strings, so Go reads every line.
 */
const KEYWORDS: Record<string, readonly string[]> = {
  TypeScript: ['import', 'require', 'export'],
  JavaScript: ['import', 'require', 'export'],
  Python: ['import'],
  Rust: ['use', 'crate'],
  Java: ['import'],
  Kotlin: ['import'],
};

/** Lines read for imports, from the top: imports sit at the head of a file. */
const IMPORT_LINES = 400;

/** Module names imported by one file (relative specifiers resolved against `file`). */
export function importsOf(file: string, text: string): string[] {
  const language = languageOf(file);
  const patterns = language ? PATTERNS[language] : undefined;
  if (!patterns || !language) return [];
  const keywords = KEYWORDS[language];
  const out: string[] = [];
  let inGoBlock = false;
  for (const line of keywords ? linesHolding(text, keywords) : text.split('\n', IMPORT_LINES)) {
    if (language === 'Go') {
      if (/^\s*import\s*\(/.test(line)) inGoBlock = true;
      else if (inGoBlock && /^\s*\)/.test(line)) inGoBlock = false;
    }
    for (const [i, pattern] of patterns.entries()) {
      if (language === 'Go' && i === 1 && !inGoBlock) continue;
      const spec = pattern.exec(line)?.[1];
      if (spec && /\w/.test(spec)) out.push(normalize(file, spec, language));
    }
  }
  return out;
}

/** The lines among the first `IMPORT_LINES` that hold one of `words`, in order (as `split` would give them). */
export function linesHolding(text: string, words: readonly string[]): string[] {
  let limit = text.length;
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
    if (++count === IMPORT_LINES) {
      limit = i;
      break;
    }
  }
  // Where each word occurs next (from `pos` on); -1 once it does not any more.
  const next = words.map(() => -2);
  const lines: string[] = [];
  let pos = 0;
  while (pos < limit) {
    let at = -1;
    for (const [w, word] of words.entries()) {
      let found = next[w] ?? -1;
      if (found !== -1 && found < pos) {
        found = text.indexOf(word, pos);
        next[w] = found;
      }
      if (found !== -1 && found < limit && (at === -1 || found < at)) at = found;
    }
    if (at === -1) break;
    const start = text.lastIndexOf('\n', at) + 1;
    const cut = text.indexOf('\n', at);
    const end = cut === -1 || cut > limit ? limit : cut;
    lines.push(text.slice(start, end));
    pos = end + 1;
  }
  return lines;
}

function normalize(file: string, spec: string, language: string): string {
  if ((language === 'TypeScript' || language === 'JavaScript') && spec.startsWith('.')) {
    const joined = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    return joined.replace(/\.(ts|tsx|js|jsx|mjs|cjs|mts)$/, '').replace(/\/index$/, '');
  }
  if (language === 'Rust') return spec.split('::').slice(0, 2).join('::');
  return spec;
}
