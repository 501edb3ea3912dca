// Retrieval on questions whose answer is a list or a line of a kind, on a real
// git repository: which files import a module (in each language's import
// shapes), which version of a dependency a manifest or lock file pins (in each
// ecosystem's manifest), which tests call a function named by a plain word, and
// a name said in prose with a short function word in it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ContextItem } from '../../../src/shared/types.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { retrievalItems, retrievalSource } from './ask.ts';

/** Files that say `json` often without importing the project's module: more hits than any importer. */
const talksJson = (n: number) =>
  `${Array.from({ length: 15 }, (_, i) => `const value${i} = payload.json(${n}); // json json`).join('\n\n')}\n`;

/** One importer of the project's `json` module per language, each behind filler so the import is not line 1. */
const IMPORTERS: Record<string, string> = {
  'app/views.py': '# filler\n\nfrom . import json\n',
  'app/api/handlers.py': '# filler\n\nfrom ..json.tag import Tag\n',
  'cmd/server/main.go': 'package main\n\nimport (\n\t"fmt"\n\t"example.com/app/internal/json"\n)\n',
  'lua/app/init.lua': '-- filler\nlocal json = require("app.json")\n',
  'lib/app/router.ex': 'defmodule App.Router do\n  alias App.Json\nend\n',
  'native/parse.c': '/* filler */\n#include "json.h"\n',
  'src/lib.rs': '// filler\nmod json;\n',
  'lib/app/loader.rb': '# filler\nrequire_relative "json"\n',
};

describe('retrieval: relations, versions, tests of a plain word, prose names', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = (content: string): Promise<ContextItem[]> => retrievalItems(source, repo.dir, content);
  const all = (items: ContextItem[]) => items.map((item) => item.text).join('\n');

  before(() => {
    repo = makeRepo({
      files: {
        'app/json/__init__.py': 'def dumps(value):\n    return str(value)\n',
        ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`web/talk${n}.js`, talksJson(n)])),
        ...IMPORTERS,
        'docs/guide.md': 'You can use json in your views:\n\n    import json\n',
        // Manifests of several ecosystems, each pinning one dependency; and a package with `test` in its name.
        'Cargo.toml': '[package]\nname = "app"\n\n[dev-dependencies]\nexpect-test = "1.5.0"\n',
        'app.gemspec': 'Gem::Specification.new do |spec|\n  spec.add_dependency "rack-session", "~> 2.0"\nend\n',
        'composer.json': '{\n  "require": {\n    "league/uri": "^7.4"\n  }\n}\n',
        'mix.exs': 'defp deps do\n  [\n    {:plug_crypto, "~> 2.1"}\n  ]\nend\n',
        'Package.swift': 'dependencies: [\n  .package(url: "https://example.com/swift-log.git", from: "1.5.3"),\n]\n',
        'App/App.csproj':
          '<ItemGroup>\n  <PackageReference Include="Serilog.Sinks.File" Version="6.0.0" />\n</ItemGroup>\n',
        'pom.xml':
          '<dependency>\n  <groupId>org.example</groupId>\n  <artifactId>fastparse</artifactId>\n  <version>3.1.4</version>\n</dependency>\n',
        Makefile: 'test:\n\tcargo test --all\n',
        '.github/workflows/ci.yml': 'jobs:\n  test:\n    steps:\n      - run: cargo test --workspace\n',
        // A function named by a plain word, called by one test and named (not called) by many others.
        'app/auth.py': 'def logout(session):\n    session.clear()\n',
        'tests/test_auth.py': 'def test_logout(client, auth):\n    auth.login()\n    auth.logout()\n',
        ...Object.fromEntries(
          [1, 2, 3, 4, 5, 6].map((n) => [
            `tests/samples/s${n}/logout.json`,
            `{\n  "name": "logout",\n  "title": "logout",\n  "label": "logout",\n  "id": "logout-${n}"\n}\n`,
          ]),
        ),
        'app/Policy.cs': 'public class NamingPolicy\n{\n}\n',
        'app/Enums.cs': 'static class Enums\n{\n    private static NamingPolicy _policy = new NamingPolicy();\n}\n',
        'app/Converter.cs': 'class Converter\n{\n    Policy = new NamingPolicy();\n}\n',
        // A name with a short function word in it, and guessed names that are only its parts.
        'app/assets.rs': 'pub fn save_to_folder(&self, path: &Path) -> Result<()> {\n    Ok(())\n}\n',
        'app/folders.rs': 'pub fn folder() -> PathBuf {\n    PathBuf::new()\n}\n',
        'app/warnings.js':
          'export function attribute_invalid_property_name(node, wrong, right) {\n  warn(node, wrong, right);\n}\n',
        ...Object.fromEntries(
          [1, 2, 3, 4, 5].map((n) => [`app/shapes${n}.js`, `export function name() {\n  return 'shape ${n}';\n}\n`]),
        ),
      },
    });
  });
  after(() => repo.cleanup());

  test("which files import a module: one line per importing file, in every language's import shape", async () => {
    const items = await ask('Which files import the json module?');
    const listing = items.find((item) => item.key === 'retrieval.code.(related lines)');
    assert.ok(listing, items.map((item) => item.key).join(','));
    for (const rel of Object.keys(IMPORTERS)) assert.match(listing.text, new RegExp(`^${rel}:\\d+: `, 'm'), rel);
    // Prose in the docs is not an importer, and a file that only says json is not one either.
    assert.doesNotMatch(listing.text, /docs\/guide\.md|web\/talk/);
  });

  for (const [dependency, line] of [
    ['expect-test', 'expect-test = "1.5.0"'],
    ['rack-session', 'spec.add_dependency "rack-session", "~> 2.0"'],
    ['league/uri', '"league/uri": "^7.4"'],
    ['plug_crypto', '{:plug_crypto, "~> 2.1"}'],
    ['swift-log', '.package(url: "https://example.com/swift-log.git", from: "1.5.3"),'],
    ['Serilog.Sinks.File', '<PackageReference Include="Serilog.Sinks.File" Version="6.0.0" />'],
    ['fastparse', '<version>3.1.4</version>'],
  ]) {
    test(`which version of ${dependency}: the manifest line that pins it comes first`, async () => {
      const items = await ask(`Which version of ${dependency} does this project depend on?`);
      assert.ok(items[0]?.text.includes(line as string), items.map((item) => `${item.key}: ${item.why}`).join('\n'));
      assert.match(items[0]?.why ?? '', /^declares /);
      // Not how the tests run, though the package's name says `test`.
      assert.ok(!items.some((item) => item.why === 'task line'), items.map((item) => item.key).join(','));
    });
  }

  test('which tests exercise a plain word the code defines: the test that calls it, over files that name it', async () => {
    const items = await ask('Which tests exercise logout?');
    const paths = items.map((item) => item.path);
    const calling = paths.indexOf('tests/test_auth.py');
    assert.ok(calling >= 0, paths.join(','));
    assert.match(items[calling]?.why ?? '', /^calls logout/);
    const naming = paths.findIndex((rel) => rel?.endsWith('logout.json'));
    assert.ok(naming === -1 || naming > calling, paths.join(','));
    assert.ok(!items.some((item) => item.path === '.github/workflows/ci.yml'), paths.join(','));
  });

  test('where objects of a class are made: a static field made on its line is listed too', async () => {
    const items = await ask('Where do we create new NamingPolicy objects?');
    const listing = items.find((item) => item.key === 'retrieval.code.(related lines)');
    assert.match(
      listing?.text ?? '',
      /^app\/Enums\.cs:\d+: private static NamingPolicy _policy = new NamingPolicy\(\);$/m,
    );
    assert.match(listing?.text ?? '', /^app\/Converter\.cs:\d+: /m);
  });

  test('a name said in prose with a short function word in it ("save to folder")', async () => {
    const items = await ask("Where is the code that does the save to folder part? I can't find it.");
    assert.equal(items[0]?.path, 'app/assets.rs', items.map((item) => `${item.path}: ${item.why}`).join('\n'));
    assert.match(all(items), /pub fn save_to_folder/);
  });

  test('a word guessed as a name gives way to the name the prose resolves to', async () => {
    const items = await ask("Where is the code that does the attribute invalid property name part? I can't find it.");
    assert.equal(items[0]?.path, 'app/warnings.js', items.map((item) => `${item.path}: ${item.why}`).join('\n'));
    assert.ok(!items.some((item) => item.path?.startsWith('app/shapes')), items.map((item) => item.path).join(','));
  });
});
