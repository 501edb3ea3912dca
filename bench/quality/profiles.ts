// The four generated repositories differ in language, layout and manifests:
// TypeScript (package.json, .nvmrc), Python (pyproject.toml, .python-version,
// Makefile), Go (go.mod, Makefile) and a JS + Rust monorepo (npm workspaces,
// a Cargo workspace). Area A holds the code behind the trace and the unstaged
// edit; area B the constants, the staged edit and the function to find.

import { GO, JAVASCRIPT, type Kit, PYTHON, RUST, TYPESCRIPT } from './kits.ts';
import type { Random } from './random.ts';
import type { Files } from './repo.ts';

export interface Profile {
  name: string;
  kitA: Kit;
  kitB: Kit;
  /** Folders holding the areas (relative to the repository). */
  srcA: string;
  srcB: string;
  rootInstruction: string;
  /** The nested instruction file for area A's folder `dirA` (the area itself or its package). */
  nestedInstruction(dirA: string): string;
  ignoredDir: string;
  gitignore: string[];
  testFile(areaA: string, module: string): string;
  importPath(areaA: string, module: string): string;
  testName(fn: string): string;
  /** The name a trace prints for the package of area A. */
  traceModule(areaA: string): string;
  /** Package boilerplate for the areas (`__init__.py`, `mod.rs`, a workspace's package.json). */
  scaffolding(areasA: string[], areasB: string[]): Files;
  manifests: Files;
  /** What "how do I build and test this, on which runtime?" needs, verbatim. */
  buildFacts: string[];
  buildQuestion: string;
}

export function typescriptProfile(r: Random, project: string): Profile {
  const minor = r.int(10, 19);
  const nvmrc = `20.${minor}.${r.int(1, 9)}`;
  const test = `vitest run --project ${r.word()}`;
  const build = `tsc -p tsconfig.${r.word()}.json`;
  return {
    name: 'typescript',
    kitA: TYPESCRIPT,
    kitB: TYPESCRIPT,
    srcA: 'src',
    srcB: 'src',
    rootInstruction: 'CLAUDE.md',
    nestedInstruction: (dirA) => `${dirA}/CLAUDE.md`,
    ignoredDir: 'dist',
    gitignore: ['node_modules/', 'dist/', '.env'],
    testFile: (_a, m) => `test/${m}.test.ts`,
    importPath: (a, m) => `../src/${a}/${m}`,
    testName: (fn) => `${fn} adds the fee`,
    traceModule: (a) => a,
    scaffolding: () => ({ 'tsconfig.json': '{ "compilerOptions": { "strict": true, "module": "nodenext" } }\n' }),
    manifests: {
      'package.json': `${JSON.stringify(
        {
          name: project,
          version: `0.${r.int(1, 9)}.0`,
          type: 'module',
          scripts: { build, test, lint: 'biome check src' },
          engines: { node: `>=20.${minor}` },
          devDependencies: { vitest: '^3.2.0', typescript: '^5.9.0' },
        },
        null,
        2,
      )}\n`,
      '.nvmrc': `${nvmrc}\n`,
    },
    buildFacts: [test, nvmrc],
    buildQuestion: 'How do I run the tests, and which Node version does this project need?',
  };
}

export function pythonProfile(r: Random, project: string): Profile {
  const minor = r.int(10, 13);
  const pinned = `3.${minor}.${r.int(1, 9)}`;
  const test = `pytest -q --maxfail=${r.int(2, 9)} tests`;
  return {
    name: 'python',
    kitA: PYTHON,
    kitB: PYTHON,
    srcA: project,
    srcB: project,
    rootInstruction: 'AGENTS.md',
    nestedInstruction: (dirA) => `${dirA}/AGENTS.md`,
    ignoredDir: 'build',
    gitignore: ['__pycache__/', 'build/', '.venv/', '.env'],
    testFile: (_a, m) => `tests/test_${m}.py`,
    importPath: (a, m) => `${project}.${a}.${m}`,
    testName: (fn) => `test_${fn}`,
    traceModule: (a) => a,
    scaffolding: (areasA, areasB) =>
      Object.fromEntries(['', ...areasA, ...areasB].map((a) => [`${project}/${a}${a ? '/' : ''}__init__.py`, ''])),
    manifests: {
      'pyproject.toml': [
        '[project]',
        `name = "${project}"`,
        `version = "0.${r.int(1, 9)}.0"`,
        `requires-python = ">=3.${minor}"`,
        `dependencies = ["httpx>=0.27", "pydantic>=2.${r.int(1, 9)}"]`,
        '',
        '[tool.pytest.ini_options]',
        'testpaths = ["tests"]',
        '',
      ].join('\n'),
      '.python-version': `${pinned}\n`,
      Makefile: `.PHONY: test lint\n\ntest:\n\t${test}\n\nlint:\n\truff check ${project}\n`,
    },
    buildFacts: [test, pinned],
    buildQuestion: 'How do I run the test suite, and which Python version should I use?',
  };
}

export function goProfile(r: Random, project: string): Profile {
  const version = `1.${r.int(21, 24)}.${r.int(1, 9)}`;
  const modulePath = `github.com/${r.word()}/${project}`;
  const test = `go test -race -run ${r.title()} ./...`;
  return {
    name: 'go',
    kitA: GO,
    kitB: GO,
    srcA: 'internal',
    srcB: 'internal',
    rootInstruction: 'AGENTS.md',
    nestedInstruction: (dirA) => `${dirA}/CLAUDE.md`,
    ignoredDir: 'bin',
    gitignore: ['bin/', '.env'],
    testFile: (a, m) => `internal/${a}/${m}_test.go`,
    importPath: (a) => `${modulePath}/internal/${a}`,
    testName: (fn) => `Test${fn}`,
    traceModule: (a) => `${modulePath}/internal/${a}`,
    scaffolding: () => ({ [`cmd/${project}/main.go`]: `package main\n\nfunc main() {}\n` }),
    manifests: {
      'go.mod': `module ${modulePath}\n\ngo ${version}\n`,
      Makefile: `.PHONY: test build\n\ntest:\n\t${test}\n\nbuild:\n\tgo build -o bin/${project} ./cmd/${project}\n`,
    },
    buildFacts: [test, version],
    buildQuestion: 'How do I run the tests, and which Go version does this module need?',
  };
}

export function monorepoProfile(r: Random, project: string): Profile {
  const web = r.word();
  const engine = r.word();
  const nvmrc = `22.${r.int(1, 12)}.${r.int(1, 9)}`;
  const rustVersion = `1.${r.int(75, 89)}.${r.int(0, 3)}`;
  const test = `vitest run --dir packages --project ${r.word()}`;
  return {
    name: 'monorepo',
    kitA: JAVASCRIPT,
    kitB: RUST,
    srcA: `packages/${web}/src`,
    srcB: `crates/${engine}/src`,
    rootInstruction: 'CLAUDE.md',
    nestedInstruction: () => `packages/${web}/AGENTS.md`,
    ignoredDir: 'target',
    gitignore: ['node_modules/', 'target/', '.env'],
    testFile: (_a, m) => `packages/${web}/test/${m}.test.js`,
    importPath: (a, m) => `../src/${a}/${m}.js`,
    testName: (fn) => `${fn} keeps the total`,
    traceModule: (a) => a,
    scaffolding: (_areasA, areas) => ({
      [`packages/${web}/package.json`]: `${JSON.stringify({ name: `@${project}/${web}`, type: 'module', scripts: { test: 'vitest run' } }, null, 2)}\n`,
      [`crates/${engine}/src/lib.rs`]: `${areas.map((a) => `pub mod ${a};`).join('\n')}\n`,
      ...Object.fromEntries(
        areas.map((a) => [`crates/${engine}/src/${a}/mod.rs`, `// The ${a} module of the ${engine} crate.\n`]),
      ),
    }),
    manifests: {
      'package.json': `${JSON.stringify(
        {
          name: project,
          private: true,
          workspaces: ['packages/*'],
          scripts: { test, build: `cargo build --release -p ${engine} && npm run build -w packages/${web}` },
          engines: { node: `>=22` },
        },
        null,
        2,
      )}\n`,
      '.nvmrc': `${nvmrc}\n`,
      'Cargo.toml': `[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n`,
      [`crates/${engine}/Cargo.toml`]: [
        '[package]',
        `name = "${engine}"`,
        'version = "0.1.0"',
        'edition = "2021"',
        `rust-version = "${rustVersion}"`,
        '',
      ].join('\n'),
    },
    buildFacts: [test, nvmrc, rustVersion],
    buildQuestion: 'How do I run the tests here, and which Node and Rust versions does this need?',
  };
}

export const PROFILES = [typescriptProfile, pythonProfile, goProfile, monorepoProfile];
