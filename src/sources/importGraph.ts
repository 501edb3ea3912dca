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

/** Module names imported by one file (relative specifiers resolved against `file`). */
export function importsOf(file: string, text: string): string[] {
  const language = languageOf(file);
  const patterns = language ? PATTERNS[language] : undefined;
  if (!patterns) return [];
  const out: string[] = [];
  let inGoBlock = false;
  for (const line of text.split('\n', 400)) {
    if (language === 'Go') {
      if (/^\s*import\s*\(/.test(line)) inGoBlock = true;
      else if (inGoBlock && /^\s*\)/.test(line)) inGoBlock = false;
    }
    for (const [i, pattern] of patterns.entries()) {
      if (language === 'Go' && i === 1 && !inGoBlock) continue;
      const spec = pattern.exec(line)?.[1];
      if (spec && /\w/.test(spec)) out.push(normalize(file, spec, language ?? ''));
    }
  }
  return out;
}

function normalize(file: string, spec: string, language: string): string {
  if ((language === 'TypeScript' || language === 'JavaScript') && spec.startsWith('.')) {
    const joined = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
    return joined.replace(/\.(ts|tsx|js|jsx|mjs|cjs|mts)$/, '').replace(/\/index$/, '');
  }
  if (language === 'Rust') return spec.split('::').slice(0, 2).join('::');
  return spec;
}
