// What a project's manifests say about running it, compactly: the runtime
// versions, the package names, and the commands that build, test and lint it.
// One function per manifest kind; each takes the file's text and returns the
// lines to show (empty when the file says nothing useful or does not parse).
// JSON, YAML and TOML (smol-toml) through real parsers; a file that does not
// parse says so in one line instead of being half-read.
// pom.xml and build.gradle have no parser here: a few well-known keys are
// picked out of them, comments removed first, and that is all they give.

import { parse as parseToml, type TomlTable, type TomlValue } from 'smol-toml';

const MAX_SCRIPT = 160;
const MAX_LIST = 20;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const clip = (s: string, n = MAX_SCRIPT) => (s.length > n ? `${s.slice(0, n)}…` : s);
const list = (items: string[], max = MAX_LIST) =>
  items.length > max ? `${items.slice(0, max).join(', ')} … (+${items.length - max})` : items.join(', ');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The commands people look for first, then the rest in file order. */
const FIRST = ['build', 'test', 'lint', 'check', 'typecheck', 'format', 'dev', 'start'];
function ordered(names: string[]): string[] {
  return [...FIRST.filter((n) => names.includes(n)), ...names.filter((n) => !FIRST.includes(n))];
}

export function packageJsonFacts(text: string): string[] {
  let pkg: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
    pkg = parsed as Record<string, unknown>;
  } catch {
    return ['(not valid JSON)'];
  }
  const out: string[] = [];
  const name = str(pkg.name);
  if (name)
    out.push(`name: ${name}${str(pkg.version) ? ` ${str(pkg.version)}` : ''}${pkg.private ? ' (private)' : ''}`);
  if (str(pkg.type)) out.push(`module type: ${str(pkg.type)}`);
  if (str(pkg.packageManager)) out.push(`package manager: ${str(pkg.packageManager)}`);
  const engines = pkg.engines;
  if (engines && typeof engines === 'object' && !Array.isArray(engines)) {
    const pairs = Object.entries(engines).filter(([, v]) => typeof v === 'string');
    if (pairs.length > 0) out.push(`engines: ${pairs.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  const ws = Array.isArray(pkg.workspaces)
    ? strings(pkg.workspaces)
    : strings((pkg.workspaces as { packages?: unknown } | undefined)?.packages);
  if (ws.length > 0) out.push(`workspaces: ${list(ws)}`);
  const scripts = pkg.scripts;
  if (scripts && typeof scripts === 'object' && !Array.isArray(scripts)) {
    const record = scripts as Record<string, unknown>;
    const names = ordered(Object.keys(record).filter((k) => typeof record[k] === 'string'));
    if (names.length > 0) {
      out.push('scripts (npm run NAME):');
      for (const n of names.slice(0, 30)) out.push(`  ${n}: ${clip(String(record[n]))}`);
      if (names.length > 30) out.push(`  … ${names.length - 30} more`);
    }
  }
  return out;
}

/** The parsed table, or undefined when the text is not valid TOML. */
export function readToml(text: string): TomlTable | undefined {
  try {
    return parseToml(text);
  } catch {
    return undefined;
  }
}

/** `tomlGet(t, 'project', 'name')`: the value at a key path, undefined when any step is missing. */
export function tomlGet(table: TomlTable, ...path: string[]): TomlValue | undefined {
  let node: TomlValue | undefined = table;
  for (const key of path) {
    if (!isTable(node)) return undefined;
    node = node[key];
  }
  return node;
}

function isTable(node: TomlValue | undefined): node is TomlTable {
  return typeof node === 'object' && node !== null && !Array.isArray(node) && !(node instanceof Date);
}

const tomlStr = (t: TomlTable, ...path: string[]) => str(tomlGet(t, ...path));
const tomlKeys = (t: TomlTable, ...path: string[]): string[] => {
  const node = tomlGet(t, ...path);
  return isTable(node) ? Object.keys(node) : [];
};
const depName = (spec: TomlValue) => (typeof spec === 'string' ? (/^[A-Za-z0-9_.-]+/.exec(spec)?.[0] ?? spec) : '');

export function pyprojectFacts(text: string): string[] {
  const t = readToml(text);
  if (t === undefined) return ['(not valid TOML)'];
  const out: string[] = [];
  const name = tomlStr(t, 'project', 'name') ?? tomlStr(t, 'tool', 'poetry', 'name');
  if (name) out.push(`name: ${name}`);
  const python = tomlStr(t, 'project', 'requires-python') ?? tomlStr(t, 'tool', 'poetry', 'dependencies', 'python');
  if (python) out.push(`python: ${python}`);
  const backend = tomlStr(t, 'build-system', 'build-backend');
  if (backend) out.push(`build backend: ${backend}`);
  const deps = tomlGet(t, 'project', 'dependencies');
  const depNames = Array.isArray(deps) ? deps.map(depName).filter(Boolean) : [];
  const poetryDeps = tomlKeys(t, 'tool', 'poetry', 'dependencies').filter((k) => k !== 'python');
  if (depNames.length + poetryDeps.length > 0) out.push(`dependencies: ${list([...depNames, ...poetryDeps])}`);
  const scripts = [...tomlKeys(t, 'project', 'scripts'), ...tomlKeys(t, 'tool', 'poetry', 'scripts')];
  if (scripts.length > 0) out.push(`console scripts: ${list(scripts)}`);
  const tools = tomlKeys(t, 'tool').filter((k) => k !== 'poetry');
  if (tools.length > 0) out.push(`tools configured: ${list(tools)}`);
  const pytest = tomlGet(t, 'tool', 'pytest', 'ini_options');
  if (isTable(pytest)) {
    const paths = strings(pytest.testpaths);
    out.push(`pytest${paths.length > 0 ? `: testpaths ${paths.join(', ')}` : ' configured'}`);
  }
  return out;
}

export function cargoFacts(text: string): string[] {
  const t = readToml(text);
  if (t === undefined) return ['(not valid TOML)'];
  const out: string[] = [];
  const name = tomlStr(t, 'package', 'name');
  if (name) out.push(`crate: ${name}${tomlStr(t, 'package', 'version') ? ` ${tomlStr(t, 'package', 'version')}` : ''}`);
  const edition = tomlStr(t, 'package', 'edition');
  if (edition) out.push(`edition: ${edition}`);
  const rust = tomlStr(t, 'package', 'rust-version') ?? tomlStr(t, 'workspace', 'package', 'rust-version');
  if (rust) out.push(`rust-version: ${rust}`);
  const members = strings(tomlGet(t, 'workspace', 'members'));
  if (members.length > 0) out.push(`workspace members: ${list(members)}`);
  const deps = tomlKeys(t, 'dependencies');
  if (deps.length > 0) out.push(`dependencies: ${list(deps)}`);
  return out;
}

/** setup.cfg is INI: sections and `key = value`, continuation lines indented. */
export function setupCfgFacts(text: string): string[] {
  const out: string[] = [];
  let section = '';
  const sections: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/[#;].*$/, '').trimEnd();
    const header = /^\[([^\]]+)\]/.exec(line);
    if (header) {
      section = (header[1] ?? '').trim();
      sections.push(section);
      continue;
    }
    const kv = /^([A-Za-z_][\w.-]*)\s*[=:]\s*(.*)$/.exec(line);
    if (!kv) continue;
    const [, key, value] = kv;
    if (section === 'metadata' && key === 'name' && value) out.push(`name: ${value.trim()}`);
    if (section === 'options' && key === 'python_requires' && value) out.push(`python: ${value.trim()}`);
  }
  const tools = sections.filter((s) => /^(tool:pytest|flake8|mypy|isort|coverage:|pycodestyle|pylint)/.test(s));
  if (tools.length > 0) out.push(`tools configured: ${list(tools)}`);
  return out;
}

export function requirementsFacts(text: string): string[] {
  const names = text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => l !== '' && !l.startsWith('-'))
    .map((l) => /^[A-Za-z0-9_.-]+/.exec(l)?.[0] ?? '')
    .filter(Boolean);
  return names.length > 0 ? [`${names.length} requirement(s): ${list(names)}`] : [];
}

export function goModFacts(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    const [word, value] = line.split(/\s+/, 2);
    if (word === 'module' && value) out.push(`module: ${value}`);
    if (word === 'go' && value) out.push(`go: ${value}`);
    if (word === 'toolchain' && value) out.push(`toolchain: ${value}`);
  }
  return out;
}

export function pomFacts(text: string): string[] {
  const body = text.replace(/<!--[\s\S]*?-->/g, '');
  // The project's own coordinates come before <dependencies>; a parent's sit inside <parent>.
  const own = body.replace(/<parent>[\s\S]*?<\/parent>/, '').split(/<dependencies>/)[0] ?? '';
  const tag = (src: string, name: string) => new RegExp(`<${name}>\\s*([^<]+?)\\s*</${name}>`).exec(src)?.[1];
  const out: string[] = [];
  const id = tag(own, 'artifactId');
  if (id)
    out.push(`artifact: ${tag(own, 'groupId') ?? '?'}:${id}${tag(own, 'version') ? `:${tag(own, 'version')}` : ''}`);
  const java = tag(body, 'maven.compiler.release') ?? tag(body, 'java.version') ?? tag(body, 'maven.compiler.source');
  if (java) out.push(`java: ${java}`);
  const modules = [...body.matchAll(/<module>\s*([^<]+?)\s*<\/module>/g)].map((m) => m[1] ?? '');
  if (modules.length > 0) out.push(`modules: ${list(modules)}`);
  out.push('build: mvn package; test: mvn test');
  return out;
}

export function gradleFacts(text: string): string[] {
  const body = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const out: string[] = [];
  const java =
    /languageVersion(?:\.set)?\s*[=(]?\s*JavaLanguageVersion\.of\(\s*(\d+)\s*\)/.exec(body)?.[1] ??
    /sourceCompatibility\s*=?\s*(?:JavaVersion\.VERSION_)?['"]?([\d._]+)/.exec(body)?.[1];
  if (java) out.push(`java: ${java.replace(/_/g, '.')}`);
  const plugins = [...body.matchAll(/\bid\s*\(?\s*["']([\w.-]+)["']/g)].map((m) => m[1] ?? '');
  if (plugins.length > 0) out.push(`plugins: ${list(plugins)}`);
  out.push('build: ./gradlew build; test: ./gradlew test');
  return out;
}

/** A recipe shown as one line: its first command (make's `@`/`-` prefixes dropped), `…` when more follow. */
function recipeLine(commands: string[]): string | undefined {
  const first = commands[0]?.replace(/^[@-]+/, '').trim();
  if (!first) return undefined;
  return clip(commands.length > 1 ? `${first} …` : first);
}

/**
 * The recipes of the well-known targets (build, test, lint…), so "how do I run
 * the tests?" has the command itself, not only a target name.
 */
function recipeLines(names: string[], recipes: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const name of FIRST.filter((n) => names.includes(n))) {
    const line = recipeLine(recipes.get(name) ?? []);
    if (line) out.push(`  ${name}: ${line}`);
  }
  return out;
}

/** Make targets: `name:` at the start of a line, not a variable (`:=`), not special (`.PHONY`). */
export function makeTargets(text: string): string[] {
  const names: string[] = [];
  const recipes = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('\t')) {
      for (const n of current) recipes.get(n)?.push(line.trim());
      continue;
    }
    const m = /^([A-Za-z0-9][\w./-]*(?:\s+[A-Za-z0-9][\w./-]*)*)\s*::?(?!=)/.exec(line);
    if (!m) {
      if (line.trim() !== '' && !line.trimStart().startsWith('#')) current = [];
      continue;
    }
    current = [];
    for (const n of (m[1] ?? '').split(/\s+/)) {
      if (n.includes('%')) continue;
      if (!names.includes(n)) names.push(n);
      // A target listed twice keeps its first recipe (make warns and uses the last; the first is rarely overridden).
      if (!recipes.has(n)) {
        recipes.set(n, []);
        current.push(n);
      }
    }
  }
  return names.length > 0 ? [`targets (make NAME): ${list(ordered(names), 30)}`, ...recipeLines(names, recipes)] : [];
}

/** just recipes: `name args:` at column 0, not an assignment (`:=`), attributes and comments skipped. */
export function justRecipes(text: string): string[] {
  const names: string[] = [];
  const recipes = new Map<string, string[]>();
  let current: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (/^\s+\S/.test(line)) {
      if (current) recipes.get(current)?.push(line.trim());
      continue;
    }
    const m = /^@?([A-Za-z_][\w-]*)(?:\s+[^:=]*)?:(?!=)/.exec(line);
    current = undefined;
    if (m?.[1] && !['set', 'alias', 'export', 'import', 'mod'].includes(m[1]) && !names.includes(m[1])) {
      names.push(m[1]);
      recipes.set(m[1], []);
      current = m[1];
    }
  }
  return names.length > 0 ? [`recipes (just NAME): ${list(ordered(names), 30)}`, ...recipeLines(names, recipes)] : [];
}

/** `.nvmrc`, `.python-version` and the like: one version per file (`.tool-versions`: one tool per line). */
export function versionFileFacts(name: string, text: string): string[] {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter(Boolean);
  if (name === '.tool-versions') return lines.slice(0, 20).map((l) => clip(l, 80));
  const tool: Record<string, string> = {
    '.nvmrc': 'node',
    '.node-version': 'node',
    '.python-version': 'python',
    '.ruby-version': 'ruby',
    '.go-version': 'go',
    '.java-version': 'java',
    'rust-toolchain': 'rust',
  };
  const first = lines[0];
  return first ? [`${tool[name] ?? name}: ${clip(first, 80)}`] : [];
}
