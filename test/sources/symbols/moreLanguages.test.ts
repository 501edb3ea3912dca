// C, C++, C#, Ruby, PHP and shell through their tree-sitter grammars (issue
// 23): per language, a snippet shaped like real code (a namespace and its
// macros, attributes and `#if` branches, a module of classes, a guard block
// around shell functions) parsed with the real grammar, and what a user
// looks up in it: where `Class::method` is defined, who calls a name, which
// files a module's import names. Definitions are read back from the text as
// the stored index does (`definitionAt`).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type Definition,
  definitionAt,
  extractDefinitions,
  extractUses,
  masked,
  type Reference,
} from '../../../src/sources/symbols/extract.ts';
import { loadGrammar, parseWithin } from '../../../src/sources/symbols/grammars.ts';
import { type Grammar, grammarOf, isOtherCode, SPECS } from '../../../src/sources/symbols/languages.ts';
import { ParseHost } from '../../../src/sources/symbols/parseHost.ts';
import { defaultIndexOptions, SymbolIndex } from '../../../src/sources/symbols/symbolIndex.ts';
import { makeRepo } from '../../support/gitRepo.ts';
import { realNeverRead } from '../input.ts';

async function parse(grammar: Grammar, text: string): Promise<{ defs: Definition[]; uses: Reference[] }> {
  const loaded = await loadGrammar(grammar);
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.reason);
  const spec = SPECS[grammar];
  const tree = parseWithin(loaded.parser, masked(text, spec), 5_000);
  assert.ok(tree);
  try {
    const defs = extractDefinitions(tree, spec);
    // Every definition reads back from the original text (macros and all), as the stored index reads it.
    for (const def of defs) {
      const back = definitionAt(text, def);
      assert.ok(back, `${def.qualified} reads back`);
      assert.equal(back.qualified, def.qualified);
    }
    return { defs, uses: extractUses(tree, spec, defs).uses };
  } finally {
    tree.delete();
  }
}

/** `kind qualified line-endLine`, for the definitions the test names. */
const shown = (defs: readonly Definition[]) => defs.map((d) => `${d.kind} ${d.qualified} ${d.line}-${d.endLine}`);
const usesOf = (uses: readonly Reference[], name: string) =>
  uses.filter((use) => use.name === name).map((use) => `${use.kind}@${use.line}`);

describe('C++ (the cpp grammar)', () => {
  const text = [
    '#include "fmt/format.h"', // 1
    '#include <vector>',
    'FMT_BEGIN_NAMESPACE',
    'namespace detail {',
    'constexpr int max_size = 10;', // 5
    'template <typename T> class FMT_API buffer : public base<T> {',
    ' public:',
    '  FMT_CONSTEXPR void push_back(const T& value) { grow(1); }',
    '  size_t size() const;',
    '  int n_;', // 10
    '};',
    'struct format_specs { int width; };',
    'enum class align { left, right };',
    'using string_view = basic_string_view<char>;',
    '}  // namespace detail', // 15
    'template <typename T> size_t detail::buffer<T>::size() const { return size_; }',
    'FMT_API std::string vformat(string_view fmt, format_args args) {',
    '  auto buf = memory_buffer();',
    '  detail::vformat_to(buf, fmt, args);',
    '  return to_string(buf);', // 20
    '}',
    'namespace {',
    'void report(const char* message) { std::fputs(message, stderr); }',
    '}',
    'FMT_END_NAMESPACE', // 25
    '#define FMT_VERSION 110100',
    'int main() { fmt::print("x"); auto p = new Foo(1); report("y"); }',
  ].join('\n');

  test('namespaces hold classes and functions (not qualifying them); methods by their class, in and out of it', async () => {
    const { defs } = await parse('cpp', text);
    assert.deepEqual(shown(defs), [
      'module detail 4-15',
      'const max_size 5-5',
      'class buffer 6-11',
      'method buffer.push_back 8-8',
      'method buffer.size 9-9',
      'struct format_specs 12-12',
      'enum align 13-13',
      'type string_view 14-14',
      'method buffer.size 16-16',
      'function vformat 17-21',
      'function report 23-23',
      'const FMT_VERSION 26-26',
      'function main 27-27',
    ]);
    // Read back from the file's text: the node begins after the macro the parse was not shown.
    const pushBack = defs.find((d) => d.qualified === 'buffer.push_back');
    assert.ok(pushBack);
    assert.equal(definitionAt(text, pushBack)?.signature, 'void push_back(const T& value)');
  });

  test('calls, constructions and includes are uses of their kind; a definition is not a use of itself', async () => {
    const { uses } = await parse('cpp', text);
    assert.deepEqual(usesOf(uses, 'vformat_to'), ['call@19']);
    assert.deepEqual(usesOf(uses, 'report'), ['call@27']);
    assert.deepEqual(usesOf(uses, 'Foo'), ['call@27']);
    assert.deepEqual(usesOf(uses, 'format'), ['import@1']);
    assert.deepEqual(usesOf(uses, 'vector'), ['import@2']);
    assert.deepEqual(usesOf(uses, 'vformat'), []);
    assert.deepEqual(usesOf(uses, 'basic_string_view'), ['type@14']);
  });

  test('C files parse with it too: functions, struct typedefs, macros, prototypes left out', async () => {
    const c = [
      '#include "sds.h"',
      'typedef struct redisReply {',
      '    int type;',
      '} redisReply;',
      'static int countDigits(uint64_t v);', // 5: a prototype
      'redisContext *redisConnect(const char *ip, int port) {',
      '    redisContext *c = redisContextInit();',
      '    return c;',
      '}',
      '#define REDIS_OK 0',
    ].join('\n');
    const { defs, uses } = await parse('cpp', c);
    assert.deepEqual(shown(defs), ['type redisReply 2-4', 'function redisConnect 6-9', 'const REDIS_OK 10-10']);
    assert.deepEqual(usesOf(uses, 'redisContextInit'), ['call@7']);
    assert.deepEqual(usesOf(uses, 'sds'), ['import@1']);
  });
});

describe('C#', () => {
  test('classes, records, structs, interfaces and their methods; namespaces do not qualify; `#if` branches looked into', async () => {
    const text = [
      'using System;',
      'using Serilog.Events;',
      'namespace Serilog.Core',
      '{',
      '    public sealed class Logger : ILogger, IDisposable', // 5
      '    {',
      '        public Logger(int x) { }',
      '#if FEATURE_SPAN',
      '        public void Write(ReadOnlySpan<object?> values) { Dispatch(values); }',
      '#else', // 10
      '        public void Write(object?[] values) { var s = new Sink(); s.Emit(values); }',
      '#endif',
      '        public string Name { get; set; }',
      '    }',
      '    public record Point(int X, int Y);', // 15
      '    public interface ILogEventSink { void Emit(LogEvent e); }',
      '    public enum Level { Debug }',
      '}',
    ].join('\n');
    const { defs, uses } = await parse('c-sharp', text);
    assert.deepEqual(shown(defs), [
      'module Serilog.Core 3-18',
      'class Logger 5-14',
      'method Logger.Logger 7-7',
      'method Logger.Write 9-9',
      'method Logger.Write 11-11',
      'variable Logger.Name 13-13',
      'class Point 15-15',
      'interface ILogEventSink 16-16',
      'method ILogEventSink.Emit 16-16',
      'enum Level 17-17',
    ]);
    assert.deepEqual(usesOf(uses, 'Emit'), ['call@11']);
    assert.deepEqual(usesOf(uses, 'Sink'), ['call@11']);
    assert.deepEqual(usesOf(uses, 'Dispatch'), ['call@9']);
    assert.deepEqual(usesOf(uses, 'Events'), ['import@2']);
  });
});

describe('C# constants', () => {
  test('a const or static readonly field is a constant of its class; other fields are not definitions', async () => {
    const text = [
      'class Logger',
      '{',
      '    public const int MaxDepth = 10;',
      '    static readonly TimeSpan DefaultPeriod = TimeSpan.FromSeconds(2);',
      '    readonly ILogEventSink _sink;',
      '    int _count = 0;',
      '}',
    ].join('\n');
    const { defs } = await parse('c-sharp', text);
    assert.deepEqual(shown(defs), ['class Logger 1-7', 'const Logger.MaxDepth 3-3', 'const Logger.DefaultPeriod 4-4']);
  });
});

describe('Ruby', () => {
  test('modules and classes qualify their methods by their own name (`Utils.escape`), as Ruby code names them', async () => {
    const text = [
      "require 'rack/utils'",
      'module Rack',
      '  VERSION = "3.0"',
      '  module Utils',
      '    def self.escape(s)', // 5
      '      URI.encode_www_form_component(s)',
      '    end',
      '    if defined?(Process::CLOCK_MONOTONIC)',
      '      def clock_time; Process.clock_gettime(Process::CLOCK_MONOTONIC); end',
      '    end', // 10
      '  end',
      '  class Request < Base',
      '    def get?; request_method == "GET" end',
      '    def params=(value) @params = value end',
      '    class << self', // 15
      '      def build(env) new(env) end',
      '    end',
      '  end',
      '  class Rack::Response; def finish; Utils.escape(body); end; end',
      'end', // 20
    ].join('\n');
    const { defs, uses } = await parse('ruby', text);
    assert.deepEqual(shown(defs), [
      'module Rack 2-20',
      'const Rack.VERSION 3-3',
      'module Rack.Utils 4-11',
      'method Utils.escape 5-7',
      'method Utils.clock_time 9-9',
      'class Rack.Request 12-18',
      // `get?` and `params=` are found by the name a question spells: `get`, `params`.
      'method Request.get 13-13',
      'method Request.params 14-14',
      'method Request.build 16-16',
      'class Rack.Response 19-19',
      'method Response.finish 19-19',
    ]);
    assert.deepEqual(usesOf(uses, 'escape'), ['call@19']);
    assert.deepEqual(usesOf(uses, 'utils'), ['import@1']);
  });

  test('a signature is the `def` line, not the comments under it', async () => {
    const text =
      'class Lint\n  # A failure\n  def check_environment(env)\n    ## The environment must be a Hash\n    env\n  end\nend\n';
    const { defs } = await parse('ruby', text);
    assert.deepEqual(
      defs.map((def) => definitionAt(text, def)?.signature),
      ['class Lint', 'def check_environment(env)'],
    );
  });

  test('Rakefiles and Gemfiles are Ruby', () => {
    assert.equal(grammarOf('Rakefile'), 'ruby');
    assert.equal(grammarOf('sub/Gemfile'), 'ruby');
    assert.equal(grammarOf('rack.gemspec'), 'ruby');
    assert.equal(grammarOf('lib/tasks/db.rake'), 'ruby');
  });
});

describe('PHP', () => {
  test('functions, classes, interfaces, traits, enums, methods, constants; `use` statements are imports', async () => {
    const text = [
      '<?php',
      'namespace GuzzleHttp;',
      'use Psr\\Http\\Message\\RequestInterface;',
      'const MAJOR = 7;',
      'function describe_type($input): string { return gettype($input); }', // 5
      'interface ClientInterface { public function send(RequestInterface $r); }',
      'trait ClientTrait { public function get($uri) { return $this->request("GET", $uri); } }',
      'class Client implements ClientInterface',
      '{',
      '    use ClientTrait;', // 10
      '    public function send(RequestInterface $request) {',
      '        $h = Utils::chooseHandler(); $p = new Pool($this); return describe_type($p);',
      '    }',
      '}',
      "enum Suit: string { case Hearts = 'H'; }", // 15
    ].join('\n');
    const { defs, uses } = await parse('php', text);
    assert.deepEqual(shown(defs), [
      'module GuzzleHttp 2-2',
      'const MAJOR 4-4',
      'function describe_type 5-5',
      'interface ClientInterface 6-6',
      'method ClientInterface.send 6-6',
      'trait ClientTrait 7-7',
      'method ClientTrait.get 7-7',
      'class Client 8-14',
      'method Client.send 11-13',
      'enum Suit 15-15',
    ]);
    assert.deepEqual(usesOf(uses, 'describe_type'), ['call@12']);
    assert.deepEqual(usesOf(uses, 'chooseHandler'), ['call@12']);
    assert.deepEqual(usesOf(uses, 'Pool'), ['call@12']);
    assert.deepEqual(usesOf(uses, 'RequestInterface'), ['import@3', 'use@6', 'use@11']);
  });
});

describe('shell (bash)', () => {
  test('functions (in the guard block a downloaded script wraps itself in), variables; sourced files are imports', async () => {
    const text = [
      '#!/usr/bin/env bash',
      '{ # this ensures the entire script is downloaded #',
      'source ./nvm_lib.sh',
      'NVM_VERSION="0.40"',
      'nvm_echo() {', // 5
      '  command printf %s\\\\n "$*" 2>/dev/null',
      '}',
      'if [ -n "$ZSH_VERSION" ]; then',
      '  nvm_is_zsh() { return 0; }',
      'fi', // 10
      'function nvm_ls_remote {',
      '  nvm_echo "x" | grep foo',
      '  nvm_download -o - "$1"',
      '}',
      'nvm_echo hi', // 15
      '}',
    ].join('\n');
    const { defs, uses } = await parse('bash', text);
    assert.deepEqual(shown(defs), [
      'variable NVM_VERSION 4-4',
      'function nvm_echo 5-7',
      'function nvm_is_zsh 9-9',
      'function nvm_ls_remote 11-14',
    ]);
    assert.deepEqual(usesOf(uses, 'nvm_echo'), ['call@12', 'call@15']);
    assert.deepEqual(usesOf(uses, 'nvm_lib'), ['import@3']);
    assert.equal(grammarOf('install.sh'), 'bash');
    assert.equal(grammarOf('bin/setup.bash'), 'bash');
  });
});

describe('which files the new grammars take', () => {
  test('by extension; languages without a grammar stay with the word search', () => {
    for (const [rel, grammar] of [
      ['src/format.cc', 'cpp'],
      ['include/fmt/base.h', 'cpp'],
      ['hiredis.c', 'cpp'],
      ['x.hpp', 'cpp'],
      ['Logger.cs', 'c-sharp'],
      ['lib/rack.rb', 'ruby'],
      ['src/Client.php', 'php'],
    ] as const) {
      assert.equal(grammarOf(rel), grammar, rel);
      assert.equal(isOtherCode(rel), false, rel);
    }
    assert.equal(grammarOf('App.kt'), undefined);
    assert.equal(isOtherCode('App.kt'), true);
  });
});

describe('bad input in the new languages, through the parse worker', () => {
  test('a 1,000-level nested file and a minified tail are skipped or bounded, with a reason; no language goes off', async () => {
    const n = 1_000;
    const head = 'int ok = 1;\n'.repeat(800);
    const repo = makeRepo({
      files: {
        'src/deep.cc': `${'namespace a {\n'.repeat(n)}void deepest() {}\n${'}\n'.repeat(n)}`,
        'src/blocks.cc': `int f() {\n${'{\n'.repeat(n)}${'}\n'.repeat(n)}}\nint after_blocks() { return 1; }\n`,
        'lib/deep.rb': `${'module A\n'.repeat(n)}def deepest; end\n${'end\n'.repeat(n)}`,
        'bin/deep.sh': `${'if x; then\n'.repeat(n)}${'fi\n'.repeat(n)}tail_fn() { :; }\n`,
        'src/bundle.cc': `${head}int x = ${'1+'.repeat(200_000)}1;\n`,
        'src/Ok.cs': 'class Ok { void Run() {} }\n',
        'src/ok.php': '<?php\nfunction ok_php() {}\n',
        'src/ok.cc': 'int fine_cpp() { return 0; }\n',
      },
    });
    // The index pauses on unreferenced timers and an idle worker is unreferenced: keep this process alive.
    const keepAlive = setInterval(() => undefined, 1_000);
    const host = new ParseHost({ workerUrl: defaultIndexOptions.workerUrl, idleMs: 50 });
    const index = new SymbolIndex(repo.dir, realNeverRead, [], defaultIndexOptions, host);
    const list = () => Promise.resolve(repo.git('ls-files', '-co', '--exclude-standard').trim().split('\n'));
    try {
      const started = performance.now();
      await index.ensure('one', list);
      assert.ok(performance.now() - started < 30_000, 'the build ends');
      assert.deepEqual([...index.state().off], [], 'no language off');
      assert.match(index.skipOf('src/bundle.cc') ?? '', /minified/);
      // Nesting is cut at a fixed depth (definitions deeper are not looked for), never an error.
      for (const rel of ['src/deep.cc', 'src/blocks.cc', 'lib/deep.rb', 'bin/deep.sh']) {
        assert.ok(index.has(rel) || index.skipOf(rel) !== undefined, rel);
      }
      assert.deepEqual(
        index.lookup('after_blocks').map((hit) => hit.rel),
        ['src/blocks.cc'],
      );
      assert.deepEqual(
        index.lookup('tail_fn').map((hit) => hit.rel),
        ['bin/deep.sh'],
      );
      for (const [name, rel] of [
        ['Run', 'src/Ok.cs'],
        ['ok_php', 'src/ok.php'],
        ['fine_cpp', 'src/ok.cc'],
      ] as const) {
        assert.deepEqual(
          index.lookup(name).map((hit) => hit.rel),
          [rel],
          name,
        );
      }
    } finally {
      index.close();
      host.close();
      clearInterval(keepAlive);
      repo.cleanup();
    }
  });
});
