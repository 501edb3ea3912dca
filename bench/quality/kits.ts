// How each language spells the few constructs the generated repositories use:
// a function, a constant, a local, a throw, a test and the stack trace its
// failure prints. The scenario asks for lines; the kit knows the syntax.

export interface TraceInput {
  /** Absolute path of the repository (as the user's machine prints it). */
  root: string;
  module: string;
  fn: string;
  /** Repository-relative file and 1-based line of the throwing statement. */
  file: string;
  line: number;
  testFile: string;
  testLine: number;
  testName: string;
  message: string;
}

export interface Kit {
  language: string;
  ext: string;
  /** How exported functions are named (Go exports capitalised names). */
  fnName(ident: string): string;
  constName(word: string): string;
  /** The whole function, signature first; `body` lines are indented by the kit. */
  fn(name: string, arg: string, body: string[]): string[];
  constant(name: string, value: string): string;
  /** A constant holding a string (where the planted secrets live). */
  stringConstant(name: string, value: string): string;
  local(name: string, value: string): string;
  throwLine(message: string): string;
  returnLine(expression: string): string;
  /** The file header (package clause, imports); may be empty. */
  header(pkg: string): string[];
  comment(text: string): string;
  /** A test that calls `fn` from `module` and fails; `callLine` is the 1-based line of the call. */
  test(input: { pkg: string; importPath: string; fn: string; testName: string }): {
    text: string;
    callLine: number;
  };
  trace(input: TraceInput): string;
}

const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

const tsLike = (language: string, ext: string, typed: boolean): Kit => ({
  language,
  ext,
  fnName: (ident) => ident,
  constName: (word) => word.toUpperCase(),
  fn: (name, arg, body) => [
    `export function ${name}(${arg}${typed ? ': number' : ''})${typed ? ': number' : ''} {`,
    ...body.map((l) => `  ${l}`),
    '}',
  ],
  constant: (name, value) => `export const ${name} = ${value};`,
  stringConstant: (name, value) => `export const ${name} = '${value}';`,
  local: (name, value) => `const ${name} = ${value};`,
  throwLine: (message) => `throw new Error('${message}');`,
  returnLine: (expression) => `return ${expression};`,
  header: () => [],
  comment: (text) => `// ${text}`,
  test: ({ importPath, fn, testName }) => ({
    text: [
      `import { expect, test } from 'vitest';`,
      `import { ${fn} } from '${importPath}';`,
      '',
      `test('${testName}', () => {`,
      `  expect(${fn}(3)).toBe(4);`,
      '});',
      '',
    ].join('\n'),
    callLine: 5,
  }),
  trace: (t) =>
    [
      ` FAIL  ${t.testFile} > ${t.testName}`,
      `Error: ${t.message}`,
      ` ❯ ${t.fn} ${t.file}:${t.line}:11`,
      ` ❯ ${t.testFile}:${t.testLine}:10`,
      '',
      `Error: ${t.message}`,
      `    at ${t.fn} (${t.root}/${t.file}:${t.line}:11)`,
      `    at ${t.root}/${t.testFile}:${t.testLine}:10`,
      `    at file://${t.root}/node_modules/@vitest/runner/dist/index.js:146:14`,
    ].join('\n'),
});

export const TYPESCRIPT = tsLike('TypeScript', 'ts', true);
export const JAVASCRIPT = tsLike('JavaScript', 'js', false);

export const PYTHON: Kit = {
  language: 'Python',
  ext: 'py',
  fnName: (ident) => ident.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
  constName: (word) => word.toUpperCase(),
  fn: (name, arg, body) => [`def ${name}(${arg}):`, ...body.map((l) => `    ${l}`)],
  constant: (name, value) => `${name} = ${value}`,
  stringConstant: (name, value) => `${name} = "${value}"`,
  local: (name, value) => `${name} = ${value}`,
  throwLine: (message) => `raise ValueError("${message}")`,
  returnLine: (expression) => `return ${expression}`,
  header: () => [],
  comment: (text) => `# ${text}`,
  test: ({ importPath, fn, testName }) => ({
    text: [`from ${importPath} import ${fn}`, '', '', `def ${testName}():`, `    assert ${fn}(3) == 4`, ''].join('\n'),
    callLine: 5,
  }),
  trace: (t) =>
    [
      `_______________________________ ${t.testName} _______________________________`,
      'Traceback (most recent call last):',
      `  File "${t.root}/${t.testFile}", line ${t.testLine}, in ${t.testName}`,
      `    assert ${t.fn}(3) == 4`,
      `  File "${t.root}/${t.file}", line ${t.line}, in ${t.fn}`,
      `    raise ValueError("${t.message}")`,
      `ValueError: ${t.message}`,
    ].join('\n'),
};

export const GO: Kit = {
  language: 'Go',
  ext: 'go',
  fnName: (ident) => cap(ident),
  constName: (word) => cap(word),
  fn: (name, arg, body) => [`func ${name}(${arg} int) int {`, ...body.map((l) => `\t${l}`), '}'],
  constant: (name, value) => `const ${name} = ${value}`,
  stringConstant: (name, value) => `const ${name} = "${value}"`,
  local: (name, value) => `${name} := ${value}`,
  throwLine: (message) => `panic("${message}")`,
  returnLine: (expression) => `return ${expression}`,
  header: (pkg) => [`package ${pkg}`, ''],
  comment: (text) => `// ${text}`,
  test: ({ pkg, fn, testName }) => ({
    text: [
      `package ${pkg}`,
      '',
      'import "testing"',
      '',
      `func ${testName}(t *testing.T) {`,
      `\tif ${fn}(3) != 4 {`,
      '\t\tt.Fatal("wrong total")',
      '\t}',
      '}',
      '',
    ].join('\n'),
    callLine: 6,
  }),
  trace: (t) =>
    [
      `--- FAIL: ${t.testName} (0.00s)`,
      `panic: ${t.message} [recovered]`,
      `\tpanic: ${t.message}`,
      '',
      'goroutine 7 [running]:',
      'testing.tRunner.func1.2({0x5d2a40, 0x6a1f10})',
      '\t/usr/local/go/src/testing/testing.go:1631 +0x24a',
      `${t.module}.${t.fn}(...)`,
      `\t${t.root}/${t.file}:${t.line} +0x1d`,
      `${t.module}.${t.testName}(0xc0000a2b60)`,
      `\t${t.root}/${t.testFile}:${t.testLine} +0x25`,
      `FAIL\t${t.module}\t0.004s`,
    ].join('\n'),
};

export const RUST: Kit = {
  language: 'Rust',
  ext: 'rs',
  fnName: (ident) => ident.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
  constName: (word) => word.toUpperCase(),
  fn: (name, arg, body) => [`pub fn ${name}(${arg}: i64) -> i64 {`, ...body.map((l) => `    ${l}`), '}'],
  constant: (name, value) => `pub const ${name}: i64 = ${value};`,
  stringConstant: (name, value) => `pub const ${name}: &str = "${value}";`,
  local: (name, value) => `let ${name} = ${value};`,
  throwLine: (message) => `panic!("${message}");`,
  returnLine: (expression) => expression,
  header: () => [],
  comment: (text) => `// ${text}`,
  test: ({ fn, testName }) => ({
    text: ['#[test]', `fn ${testName}() {`, `    assert_eq!(${fn}(3), 4);`, '}', ''].join('\n'),
    callLine: 3,
  }),
  trace: (t) =>
    [
      `thread '${t.testName}' panicked at ${t.file}:${t.line}:5:`,
      t.message,
      'stack backtrace:',
      `   0: ${t.module}::${t.fn}`,
      `             at ./${t.file}:${t.line}:5`,
      `   1: ${t.testName}`,
      `             at ./${t.testFile}:${t.testLine}:16`,
    ].join('\n'),
};
