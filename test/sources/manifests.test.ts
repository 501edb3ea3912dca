// The manifests source: golden facts per manifest kind, and the source on real
// repositories (root and folders in play only, through the guard, ignored and
// never-read manifests never read). Issue 13, item 4.

import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ContextItem } from '../../src/shared/types.ts';
import * as facts from '../../src/sources/manifestFacts.ts';
import { createManifestsSource, foldersInPlay } from '../../src/sources/manifests.ts';
import { Workspaces } from '../../src/sources/workspace.ts';
import { makeRepo, type TempRepo } from '../support/gitRepo.ts';
import { input, signal, testDeps } from './input.ts';

const byKey = (items: ContextItem[]) => Object.fromEntries(items.map((item) => [item.key, item.text]));

describe('manifest facts (golden)', () => {
  test('package.json: name, engines, package manager, workspaces, scripts (build/test/lint first)', () => {
    const text = JSON.stringify({
      name: '@acme/shop',
      version: '1.2.0',
      private: true,
      type: 'module',
      packageManager: 'pnpm@9.1.0',
      engines: { node: '>=20.11', pnpm: '>=9' },
      workspaces: ['packages/*', 'apps/*'],
      scripts: { dev: 'vite', lint: 'biome check .', test: 'vitest run', build: 'tsc -b' },
    });
    assert.deepEqual(facts.packageJsonFacts(text), [
      'name: @acme/shop 1.2.0 (private)',
      'module type: module',
      'package manager: pnpm@9.1.0',
      'engines: node >=20.11, pnpm >=9',
      'workspaces: packages/*, apps/*',
      'scripts (npm run NAME):',
      '  build: tsc -b',
      '  test: vitest run',
      '  lint: biome check .',
      '  dev: vite',
    ]);
    assert.deepEqual(facts.packageJsonFacts('{ not json'), ['(not valid JSON)']);
  });

  test('pyproject.toml (PEP 621 and poetry), setup.cfg, requirements', () => {
    const pep = [
      '[build-system]',
      'requires = ["hatchling"]',
      'build-backend = "hatchling.build"',
      '',
      '[project]',
      'name = "billing"  # the package',
      "requires-python = '>=3.11'",
      'dependencies = [',
      '  "httpx>=0.27",',
      '  "pydantic[email]>=2",',
      ']',
      '[project.scripts]',
      'billing = "billing.cli:main"',
      '[tool.pytest.ini_options]',
      'testpaths = ["tests"]',
      '[tool.ruff]',
      'line-length = 100',
      '[[tool.mypy.overrides]]',
      'module = "x"',
    ].join('\n');
    assert.deepEqual(facts.pyprojectFacts(pep), [
      'name: billing',
      'python: >=3.11',
      'build backend: hatchling.build',
      'dependencies: httpx, pydantic',
      'console scripts: billing',
      'tools configured: pytest, ruff, mypy',
      'pytest: testpaths tests',
    ]);
    const poetry = '[tool.poetry]\nname = "legacy"\n[tool.poetry.dependencies]\npython = "^3.9"\nrequests = "*"\n';
    assert.deepEqual(facts.pyprojectFacts(poetry), ['name: legacy', 'python: ^3.9', 'dependencies: requests']);
    const cfg = '[metadata]\nname = oldpkg\n[options]\npython_requires = >=3.8\n[flake8]\nmax-line-length = 99\n';
    assert.deepEqual(facts.setupCfgFacts(cfg), ['name: oldpkg', 'python: >=3.8', 'tools configured: flake8']);
    assert.deepEqual(
      facts.requirementsFacts('# pinned\nDjango==5.0\n-r base.txt\nrequests>=2 ; python_version>"3"\n'),
      ['2 requirement(s): Django, requests'],
    );
  });

  test('go.mod, Cargo.toml, pom.xml, build.gradle', () => {
    assert.deepEqual(facts.goModFacts('module example.com/acme/api\n\ngo 1.22\ntoolchain go1.22.3 // pinned\n'), [
      'module: example.com/acme/api',
      'go: 1.22',
      'toolchain: go1.22.3',
    ]);
    const cargo =
      '[package]\nname = "engine"\nversion = "0.3.0"\nedition = "2021"\nrust-version = "1.78"\n[dependencies]\nserde = { version = "1", features = ["derive"] }\ntokio = "1"\n';
    assert.deepEqual(facts.cargoFacts(cargo), [
      'crate: engine 0.3.0',
      'edition: 2021',
      'rust-version: 1.78',
      'dependencies: serde, tokio',
    ]);
    assert.deepEqual(facts.cargoFacts('[workspace]\nmembers = ["crates/a", "crates/b"]\n'), [
      'workspace members: crates/a, crates/b',
    ]);
    const pom = `<project><!-- <artifactId>commented</artifactId> -->
  <parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId></parent>
  <groupId>com.acme</groupId><artifactId>orders</artifactId><version>2.0.1</version>
  <properties><java.version>21</java.version></properties>
  <dependencies><dependency><artifactId>lib</artifactId></dependency></dependencies></project>`;
    assert.deepEqual(facts.pomFacts(pom), [
      'artifact: com.acme:orders:2.0.1',
      'java: 21',
      'build: mvn package; test: mvn test',
    ]);
    const gradle =
      'plugins {\n  id \'java\'\n  id("org.springframework.boot") version "3.2.0"\n}\n// sourceCompatibility = 8\njava { toolchain { languageVersion = JavaLanguageVersion.of(17) } }\n';
    assert.deepEqual(facts.gradleFacts(gradle), [
      'java: 17',
      'plugins: java, org.springframework.boot',
      'build: ./gradlew build; test: ./gradlew test',
    ]);
  });

  test('the command behind a well-known make target: the first line, prefixes dropped, more marked', () => {
    const make =
      '.PHONY: test check\n# Run the suite\ntest:\n\t@pytest -q --maxfail=3 tests\n\ncheck: test\n\t-go vet ./...\n\tgo test ./...\nrelease:\n\t./ship\n';
    assert.deepEqual(facts.makeTargets(make), [
      'targets (make NAME): test, check, release',
      '  test: pytest -q --maxfail=3 tests',
      '  check: go vet ./... …',
    ]);
    const just = 'build:\n    cargo build --release\n\nlint:\n    cargo clippy\n';
    assert.deepEqual(facts.justRecipes(just), [
      'recipes (just NAME): build, lint',
      '  build: cargo build --release',
      '  lint: cargo clippy',
    ]);
  });

  test('Makefile targets, just recipes, version files', () => {
    const make =
      'CC := gcc\n.PHONY: all test\nall: build\nbuild: src/main.c\n\t$(CC) -o app $<\ntest lint:\n\t./run\n%.o: %.c\n';
    assert.deepEqual(facts.makeTargets(make), [
      'targets (make NAME): build, test, lint, all',
      '  build: $(CC) -o app $<',
      '  test: ./run',
      '  lint: ./run',
    ]);
    const just =
      'set shell := ["bash", "-c"]\nversion := "1"\n# runs the tests\ntest *args:\n  cargo test {{args}}\n@fmt:\n  cargo fmt\n';
    assert.deepEqual(facts.justRecipes(just), ['recipes (just NAME): test, fmt', '  test: cargo test {{args}}']);
    assert.deepEqual(facts.versionFileFacts('.nvmrc', 'v20.11.1\n'), ['node: v20.11.1']);
    assert.deepEqual(facts.versionFileFacts('.python-version', '3.12.2\n'), ['python: 3.12.2']);
    assert.deepEqual(facts.versionFileFacts('.tool-versions', 'nodejs 20.11.1\n# x\npython 3.12.2\n'), [
      'nodejs 20.11.1',
      'python 3.12.2',
    ]);
  });

  test('TOML through a real parser: strings, inline tables and array-of-tables read right, bad TOML said so', () => {
    const pyproject = [
      'description = """',
      'name = "wrong"',
      '"""',
      '[project]',
      "name = 'billing' # literal string",
      'requires-python = ">=3.12"',
      'dependencies = [ "httpx>=0.27", # comment inside an array',
      '  "rich" ]',
      '[[tool.mypy.overrides]]',
      'module = "x"',
      '[tool.poetry.scripts]',
      'billing = { reference = "billing.cli:main", type = "console" }',
    ].join('\n');
    assert.deepEqual(facts.pyprojectFacts(pyproject), [
      'name: billing',
      'python: >=3.12',
      'dependencies: httpx, rich',
      'console scripts: billing',
      'tools configured: mypy',
    ]);
    const workspace = '[workspace]\nmembers = ["a"]\npackage = { rust-version = "1.80" }\n';
    assert.deepEqual(facts.cargoFacts(workspace), ['rust-version: 1.80', 'workspace members: a']);
    assert.deepEqual(facts.cargoFacts('[package]\nname = "x"\nname = "y"\n'), ['(not valid TOML)']);
    assert.deepEqual(facts.pyprojectFacts('[project\nname = "x"'), ['(not valid TOML)']);
  });

  test('folders in play: the root, then the folders of the files, nearest first', () => {
    assert.deepEqual(foldersInPlay(['services/api/src/main.go', 'README.md']), [
      '',
      'services/api/src',
      'services/api',
      'services',
    ]);
  });
});

describe('manifests source', () => {
  const repos: TempRepo[] = [];
  after(() => {
    for (const repo of repos) repo.cleanup();
  });

  test('root and folders in play only; ignored and never-read manifests never read', async () => {
    const r = makeRepo({
      files: {
        'package.json': JSON.stringify({ name: 'mono', scripts: { test: 'npm -ws test' } }),
        '.nvmrc': '20\n',
        '.gitignore': 'vendor/\n',
        'services/api/go.mod': 'module example.com/api\ngo 1.22\n',
        'services/api/main.go': 'package main\n',
        'services/web/package.json': JSON.stringify({ name: 'WEBMARK' }),
        'vendor/pkg/Makefile': 'VENDORMARK:\n',
      },
    });
    repos.push(r);
    r.write('services/api/main.go', 'package main // edited\n');
    r.write('vendor/pkg/Makefile', 'VENDORMARK:\n\techo\n');
    const deps = testDeps({ isNeverRead: (rel) => rel.endsWith('.nvmrc') });
    const source = createManifestsSource(deps, new Workspaces(deps));
    const result = await source.collect(
      input(r.dir, { wanted: ['manifests.'], text: 'what about vendor/pkg/Makefile?' }),
      signal,
    );
    const items = byKey(result.items);
    assert.deepEqual(Object.keys(items).sort(), ['manifests.package.json', 'manifests.services/api/go.mod']);
    assert.equal(items['manifests.services/api/go.mod'], 'module: example.com/api\ngo: 1.22');
    assert.match(items['manifests.package.json'] ?? '', /test: npm -ws test/);
    assert.doesNotMatch(JSON.stringify(result), /WEBMARK|VENDORMARK/);
    assert.deepEqual(result.skipped, [{ path: '.nvmrc', reason: 'refused: never read (a secret by nature)' }]);
    assert.deepEqual(
      (await source.collect(input(r.dir, { wanted: ['git.'] }), signal)).items,
      [],
      'not wanted, not read',
    );
  });

  test('a manifest is sent when the question can use it: versions, tests, builds, the whole project, its file or a word it holds', async () => {
    const r = makeRepo({
      files: {
        'package.json': JSON.stringify({ name: 'mono', scripts: { test: 'npm -ws test', predeploy: 'tsc' } }),
        'services/api/go.mod': 'module example.com/api\ngo 1.22\n',
        'services/api/main.go': 'package main\n',
      },
    });
    repos.push(r);
    r.write('services/api/main.go', 'package main // edited\n');
    const deps = testDeps();
    const source = createManifestsSource(deps, new Workspaces(deps));
    const keys = async (text: string) =>
      Object.keys(byKey((await source.collect(input(r.dir, { wanted: ['manifests.'], text }), signal)).items)).sort();
    const both = ['manifests.package.json', 'manifests.services/api/go.mod'];
    for (const text of [
      'Which Go version does this need?',
      'How do I run the tests?',
      'How is the project built?',
      'How do I lint it before a PR?',
      'What is the minimum Node.js we support?',
    ]) {
      assert.deepEqual(await keys(text), both, text);
    }
    for (const text of [
      'Where is `parseInvoice` defined?',
      'Who calls retryLater?',
      'What does the handler do on a 404?',
    ]) {
      assert.deepEqual(await keys(text), [], text);
    }
    assert.deepEqual(await keys('How is this repository laid out? Which folders hold the code?'), both);
    assert.deepEqual(await keys('What does `predeploy` do?'), ['manifests.package.json']);
    assert.deepEqual(await keys('Is example.com/api the right module path?'), ['manifests.services/api/go.mod']);
    assert.deepEqual(await keys('Walk me through services/api/go.mod'), ['manifests.services/api/go.mod']);
  });
});
