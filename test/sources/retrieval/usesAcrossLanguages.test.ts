// "Who calls / uses / includes / tests X" answered by one mechanism in every
// language: the question's wording (callers.ts), one rank of a line's use
// (a call over a mention; a definition or a comment never a use), imports
// written over several lines followed by their brackets (importForms.ts), a
// module path in a tree-sitter import node stored as a use of its stem, and
// the listing the retrieval source sends, on a real git repository in C++,
// Zig, Erlang, Clojure, Lua, Ruby, Python and TypeScript.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openIndexDatabase } from '../../../src/pipeline/indexDatabase.ts';
import { silentLogger } from '../../../src/shared/logger.ts';
import { askedUses, useRank, usesOf } from '../../../src/sources/retrieval/callers.ts';
import { askedModules, importContinuations } from '../../../src/sources/retrieval/importForms.ts';
import { IndexStore } from '../../../src/sources/retrieval/index/store.ts';
import { storedUses } from '../../../src/sources/retrieval/index/storedUses.ts';
import { moduleStem } from '../../../src/sources/symbols/extract.ts';
import { SymbolIndex } from '../../../src/sources/symbols/symbolIndex.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { realNeverRead } from '../input.ts';
import { retrievalItems, retrievalSource } from './ask.ts';

describe('which questions ask who uses a name, or which tests exercise it', () => {
  for (const [text, expected] of [
    ['Who calls parse_args?', { calls: true, tests: false }],
    ['And where is it used?', { calls: true, tests: false }],
    ['Which files use the router module?', { calls: true, tests: false }],
    ['Show me the callers of formatValue', { calls: true, tests: false }],
    ['Which tests exercise logout?', { calls: false, tests: true }],
    ['Which tests call that function?', { calls: false, tests: true }],
    ['Are there tests for parse_header?', { calls: false, tests: true }],
  ] as const) {
    test(`asks: ${text}`, () => assert.deepEqual(askedUses(text), expected));
  }
  for (const text of [
    'Which version of rack does this project use?',
    'Where is parse_args defined?',
    'How do I run the test suite?',
    'What does `formatValue` do?',
  ]) {
    test(`does not ask: ${text}`, () => assert.equal(askedUses(text), undefined));
  }
});

describe('how a line uses a name, in every language by one rule', () => {
  const calls: [string, string][] = [
    ['parse_args', '  n = parse_args(argc, argv);'],
    ['reply', '    Req = cowboy_req:reply(200, #{}, Req0),'],
    ['cowboy_req', '    Req = cowboy_req:reply(200, #{}, Req0),'],
    ['wrap-params', '  (wrap-params handler {:encoding "UTF-8"})'],
    ['parse', '    const tree = try json.parse(allocator, text);'],
    ['json', '    const tree = try json.parse(allocator, text);'],
    ['normalize', '    |> normalize()'],
    ['format_to', '  fmt::format_to(out, "{}", x);'],
    ['format', '  return format("{}", x);'],
    ['format', '  auto s = fmt::format("{}", x);'],
  ];
  for (const [name, line] of calls) test(`a call: ${line.trim()}`, () => assert.equal(useRank([name])(line), 2));
  const mentions: [string, string][] = [
    ['parse_args', '    handlers = [parse_args, parse_env]'],
    ['wrap-params', '  (-> handler wrap-params wrap-cookies)'],
    ['parse_args', 'from cli.args import parse_args'],
  ];
  for (const [name, line] of mentions) test(`a mention: ${line.trim()}`, () => assert.equal(useRank([name])(line), 1));
  const never: [string, string][] = [
    ['parse_args', 'def parse_args(argv):'],
    ['parse_args', 'static int parse_args(int argc, char **argv) {'],
    ['parse_args', 'parse_args(int argc, char **argv) {'],
    ['cowboy_req', '-module(cowboy_req).'],
    ['router', '(ns app.router'],
    ['reply', 'reply(Status, Headers, Req) ->'],
    ['wrap-params', '(defn wrap-params'],
    ['parse', 'pub fn parse(allocator: Allocator, text: []const u8) !Tree {'],
    ['parse_args', '  // parse_args is called before the config is read'],
    ['parse_args', '# parse_args(argv) returns a namespace'],
    ['reply', '%% reply/3 sends the response'],
    ['wrap-params', ';; wrap-params reads the query string'],
    ['parse_args', '  n = parse_arguments(argc, argv);'],
    ['format', 'std::string format(const char* f);'],
    ['format', 'FMT_API auto format(string_view fmt, format_args args) -> std::string;'],
    ['format', '#include "fmt/format.h"'],
  ];
  for (const [name, line] of never) test(`not a use: ${line.trim()}`, () => assert.equal(useRank([name])(line), 0));

  test('which tests: only test files; a stored call ranks as a call though its line reads as a mention', () => {
    const hit = (rel: string, text: string) => ({ rel, line: 3, text });
    const stored = [{ ...hit('tests/test_cli.py', '    run(handler=parse_args)'), kind: 'call' }];
    const used = usesOf({ calls: false, tests: true }, ['parse_args'], stored, [
      hit('app/cli.py', '    parse_args(argv)'),
      hit('tests/test_env.py', '    assert parse_args'),
    ]);
    assert.deepEqual(
      used.hits.map((h) => h.rel),
      ['tests/test_cli.py', 'tests/test_env.py'],
    );
    assert.equal(used.rank('    run(handler=parse_args)'), 2);
    assert.equal(used.rank('    assert parse_args'), 1);
  });
});

describe('imports written over several lines', () => {
  test('the lines inside a Go block, a Python parenthesis, a Rust brace, a Clojure require', () => {
    const text = [
      'import (', //1
      '\t"fmt"', //2
      '\t"example.com/app/json"', //3
      ')', //4
      'from app.json import (', //5
      '    dumps,', //6
      ')', //7
      'use crate::{', //8
      '    json,', //9
      '};', //10
      '(ns app.core', //11
      '  (:require [app.json :as j]', //12
      '            [clojure.string :as str]))', //13
      'func run() {', //14
      '\tjson.dumps(x)', //15
      '}', //16
    ].join('\n');
    assert.deepEqual(
      [...importContinuations(text)].sort((a, b) => a - b),
      [2, 3, 4, 6, 7, 9, 10, 13],
    );
  });

  test('module names: a path, a header, a Go major version; not a sentence', () => {
    assert.equal(moduleStem('./router.js'), 'router');
    assert.equal(moduleStem('fmt/format.h'), 'format');
    assert.equal(moduleStem('example.com/app/internal/json'), 'json');
    assert.equal(moduleStem('github.com/x/cli/v2'), 'cli');
    assert.equal(moduleStem('a b c'), undefined);
    assert.deepEqual(askedModules('Which files include these?', ['format.h', 'src/router.zig', 'Makefile']), [
      'format',
      'router',
    ]);
    assert.deepEqual(askedModules('Which files import the format module? The same module as before.', []), ['format']);
  });
});

const FILES: Record<string, string> = {
  // C++: two includers of format.h, one file that only says format.
  'include/fmt/format.h': '#pragma once\nnamespace fmt {\nstd::string format(const char* f);\n}\n',
  'src/os.cc': '// os\n#include "fmt/format.h"\n#include "fmt/os.h"\n',
  'test/format-test.cc': '#include <string>\n#include "fmt/format.h"\n\nTEST(format, basic) {}\n',
  // A header and the function it declares share a name.
  'include/fmt/vformat_to.h': '#pragma once\nstd::string vformat_to(const char* f);\n',
  'src/report.cc': '#include "fmt/vformat_to.h"\nstd::string report(int n) {\n  return fmt::vformat_to("{}", n);\n}\n',
  'src/table.cc': '#include "fmt/vformat_to.h"\n',
  'src/main.cc': 'int main() {\n  puts(vformat_to("{:>8}", 1).c_str());\n}\n',
  'src/printf.cc': '// the format of the output is fixed\nint x = 1; // format format format\n',
  // Zig, Clojure, Lua, Ruby and TypeScript importers of the router module; Clojure's over several lines.
  'src/main.zig': 'const std = @import("std");\nconst router = @import("router.zig");\n',
  'src/app/core.clj': '(ns app.core\n  (:require [clojure.string :as str]\n            [app.router :as r]))\n',
  'lua/app/init.lua': '-- init\nlocal router = require("app.router")\n',
  'lib/app/server.rb': '# server\nrequire_relative "router"\n',
  'web/index.ts': "import { route } from './router.js';\n",
  'src/router.zig': 'pub fn route() void {}\n',
  // Who calls parse_args: the definition, a comment and a look-alike are not callers.
  'cli/args.py': 'def parse_args(argv):\n    return argv\n',
  'cli/main.py':
    'from cli.args import parse_args\n\ndef main(argv):\n    # parse_args reads argv\n    return parse_args(argv)\n',
  'cli/env.py': 'def load():\n    return parse_args_from_env()\n',
  'cli/run.py': 'import sys\n\nresult = parse_args(sys.argv)\n',
  // Which tests exercise it: a test that calls it over one that only names it.
  'tests/test_args.py': 'from cli.args import parse_args\n\ndef test_parse():\n    assert parse_args([]) == []\n',
  'tests/test_docs.py': 'def test_docs():\n    assert "parse_args" in HELP  # names parse_args\n',
  // Erlang: calls through the module are its uses.
  'src/handler.erl':
    '-module(handler).\n-include("app.hrl").\ninit(Req0, State) ->\n    Req = cowboy_req:reply(200, Req0),\n    {ok, Req, State}.\n',
  'src/stream.erl': '-module(stream).\ninfo(Req) ->\n    cowboy_req:stream_reply(200, Req).\n',
  'src/cowboy_req.erl': '-module(cowboy_req).\nreply(Status, Req) ->\n    Req.\n',
};

describe('retrieval: the listing of who uses, includes or tests a name', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const listing = async (content: string): Promise<string> => {
    const items = await retrievalItems(source, repo.dir, content);
    return items.find((item) => item.key === 'retrieval.code.(related lines)')?.text ?? '';
  };
  // Uses: the listing holds the lines no region shows, so in a repository this small the regions carry most of
  // them. What reaches the model is both, each line once.
  const forwarded = async (content: string) => {
    const items = await retrievalItems(source, repo.dir, content);
    const listed = items.find((item) => item.key === 'retrieval.code.(related lines)')?.text ?? '';
    return { listed, all: items.map((item) => item.text).join('\n'), keys: items.map((item) => item.key) };
  };
  const once = (all: string, line: string) => all.split(line).length - 1 === 1;

  before(() => {
    repo = makeRepo({ files: FILES });
  });
  after(() => repo.cleanup());

  test('what includes a header named as a file: its includers, not a file that only says the word', async () => {
    const text = await listing('Which files include format.h?');
    assert.match(text, /^src\/os\.cc:2: #include "fmt\/format\.h"$/m);
    assert.match(text, /^test\/format-test\.cc:2: /m);
    assert.doesNotMatch(text, /printf\.cc|include\/fmt\/format\.h:/);
    // Said as a module, though "format" is also a build word.
    const asModule = await listing('Which files import the format module?');
    assert.match(asModule, /^src\/os\.cc:2: /m);
    assert.match(asModule, /^test\/format-test\.cc:2: /m);
    assert.doesNotMatch(asModule, /printf\.cc/);
  });

  test('which files import the router module: Zig, Clojure over two lines, Lua, Ruby, TypeScript', async () => {
    const text = await listing('Which files import the router module?');
    for (const line of [
      'src/main.zig:2: const router = @import("router.zig");',
      'src/app/core.clj:3: [app.router :as r]))',
      'lua/app/init.lua:2: local router = require("app.router")',
      'lib/app/server.rb:2: require_relative "router"',
      "web/index.ts:1: import { route } from './router.js';",
    ])
      assert.ok(text.includes(line), `${line}\n---\n${text}`);
  });

  test('a name that is a file and a function: its includers for "include", its callers for "call"', async () => {
    const includers = await listing('Which files include vformat_to.h?');
    assert.match(includers, /^src\/report\.cc:1: /m);
    assert.match(includers, /^src\/table\.cc:1: /m);
    assert.doesNotMatch(includers, /src\/report\.cc:3|src\/main\.cc/);
    const callers = await forwarded('Who calls vformat_to?');
    assert.ok(once(callers.all, 'return fmt::vformat_to("{}", n);'), callers.all);
    assert.ok(once(callers.all, 'puts(vformat_to('), callers.all);
    assert.doesNotMatch(callers.listed, /#include|std::string vformat_to\(const char\* f\);/);
  });

  test('who calls a function: the calls, not its definition, a comment or a longer name', async () => {
    const { listed, all } = await forwarded('Who calls parse_args?');
    assert.ok(once(all, 'return parse_args(argv)'), all);
    assert.ok(once(all, 'result = parse_args(sys.argv)'), all);
    assert.doesNotMatch(listed, /def parse_args|# parse_args|parse_args_from_env/);
  });

  test('which tests exercise it: test files only, the one that calls it first', async () => {
    const { listed, keys } = await forwarded('Which tests exercise parse_args?');
    const calling = keys.indexOf('retrieval.code.tests/test_args.py');
    const naming = keys.indexOf('retrieval.code.tests/test_docs.py');
    assert.ok(calling >= 0 && (naming === -1 || naming > calling), keys.join(', '));
    assert.doesNotMatch(listed, /^cli\//m);
  });

  test('who uses an Erlang module: the calls through it, not the module itself', async () => {
    const { listed, all } = await forwarded('Who uses cowboy_req?');
    assert.ok(once(all, 'Req = cowboy_req:reply(200, Req0),'), all);
    assert.ok(once(all, 'cowboy_req:stream_reply(200, Req).'), all);
    assert.doesNotMatch(listed, /-module\(cowboy_req\)/);
  });
});

describe('module paths in imports, stored as uses of their stem', () => {
  let repo: TempRepo;
  before(() => {
    repo = makeRepo({
      files: {
        'web/checkout.ts': "import { computeRate } from './rates.js';\n\nconst path = './rates.js';\n",
        'svc/use.go': 'package svc\n\nimport (\n\t"fmt"\n\t"example.com/app/rates"\n)\n',
        'web/rates.ts': 'export function computeRate(n: number): number {\n  return n;\n}\n',
      },
    });
  });
  after(() => repo.cleanup());

  test('an import names the file by its path; a string elsewhere is not an import', async () => {
    const store = new IndexStore(openIndexDatabase(repo.dir, silentLogger));
    const index = new SymbolIndex(repo.dir, realNeverRead, [], undefined, undefined, store.symbols);
    const hold = setInterval(() => undefined, 1_000);
    try {
      const files = () => Promise.resolve(repo.git('ls-files').trim().split('\n'));
      await index.ensure('one', files);
      const read = { root: repo.dir, isNeverRead: realNeverRead, allowedRoots: [] };
      const found = storedUses(store.symbols, read, ['rates'], { kinds: ['import'] });
      assert.deepEqual(found.map((hit) => `${hit.rel}:${hit.line}`).sort(), ['svc/use.go:5', 'web/checkout.ts:1']);
    } finally {
      clearInterval(hold);
      index.close();
      store.close();
    }
  });
});
