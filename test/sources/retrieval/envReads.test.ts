// "Which environment variables does this read?" in any language: a read is
// one shape (an accessor naming the environment, a step or two, an upper-case
// name), not a list of spellings, so a language nobody listed is found too.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { ENV_READ_SOURCE, readsEnvironment } from '../../../src/sources/retrieval/envReads.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { askRetrieval, retrievalSource } from './ask.ts';

/** One read per language, each spelt as that language's code does. */
const READS: Record<string, string> = {
  python: 'token = os.environ.get("API_TOKEN")',
  pythonIndex: 'home = os.environ["HOME_DIR"]',
  go: 'addr := os.Getenv("LISTEN_ADDR")',
  goLookup: 'v, ok := os.LookupEnv("GO_FLAGS")',
  rust: 'let level = std::env::var("RUST_LOG").ok();',
  rustMacro: 'const HASH: Option<&str> = option_env!("GIT_HASH");',
  node: 'const mode = process.env.NODE_ENV;',
  vite: 'const url = import.meta.env.VITE_API_URL;',
  java: 'String home = System.getenv("JAVA_HOME");',
  javaMap: 'String p = System.getenv().get("PROXY_HOST");',
  csharp: 'var root = Environment.GetEnvironmentVariable("DOTNET_ROOT");',
  ruby: 'env = ENV.fetch("RACK_ENV", "development")',
  php: "$key = $_ENV['APP_KEY'] ?? getenv('APP_SECRET');",
  elixir: 'secret = System.fetch_env!("SECRET_KEY_BASE")',
  swift: 'let home = ProcessInfo.processInfo.environment["SWIFT_HOME"]',
  dart: "const api = String.fromEnvironment('DART_API');",
  haskell: 'home <- lookupEnv "XDG_CONFIG_HOME"',
  zig: 'const dir = try std.process.getEnvVarOwned(allocator, "ZIG_CACHE");',
  erlang: 'Libs = os:getenv("ERL_LIBS"),',
  clojure: '(def port (System/getenv "LEIN_PORT"))',
  ocaml: 'let debug = Sys.getenv_opt "OCAMLRUNPARAM" in',
  perl: 'has tmpdir => sub { $ENV{MOJO_TMPDIR} || tmpdir };',
  r: 'verbose <- Sys.getenv("HTTR2_VERBOSE", "")',
  julia: 'const PORT = parse(Int, get(ENV, "BENCH_PORT", "9381"))',
  juliaIndex: 'if haskey(ENV, "JULIA_DEBUG")',
  lua: 'local path = os.getenv("LUA_PATH")',
  c: 'const char *home = getenv("HOME_DIR");',
  powershell: 'Write-Output $env:GIT_DIR',
};

describe('environment reads: one shape for every language', () => {
  test('a read is recognised in each language, including ones no list spelt (Perl, Julia, R, OCaml)', () => {
    for (const [language, line] of Object.entries(READS)) assert.ok(readsEnvironment(line), language);
  });

  test('a line that mentions the environment without reading a variable is not a read', () => {
    for (const line of [
      'const env = makeEnv();',
      'if (env === "production") return;',
      'environ: WSGIEnvironment, start_response: StartResponse',
      'Both environments support XMLHttpRequest',
      'export GOPATH=/usr/local/go',
      'limit = MAX_SIZE',
      'ENVIRONMENT VARIABLES',
      'println!("cargo:rerun-if-env-changed=PROJECT_NAME");',
      'comment: "Robot Framework environment variable, like %{USER}"',
      'Set the environment variable FOO_BAR before you start.',
    ])
      assert.equal(readsEnvironment(line), false, line);
  });

  test('git grep -E reads the same shape as JavaScript does', () => {
    const repo = makeRepo({ files: { 'reads.txt': `${Object.values(READS).join('\n')}\nconst env = makeEnv();\n` } });
    try {
      const found = execFileSync('git', ['grep', '-c', '-E', '-e', ENV_READ_SOURCE, '--', 'reads.txt'], {
        cwd: repo.dir,
        encoding: 'utf8',
      });
      assert.equal(found.trim(), `reads.txt:${Object.keys(READS).length}`);
    } finally {
      repo.cleanup();
    }
  });

  test('a line of a megabyte is tested in linear time (its head only)', () => {
    const started = performance.now();
    readsEnvironment(`env.${'a.'.repeat(500_000)}`);
    readsEnvironment(`ENV${' ('.repeat(500_000)}`);
    assert.ok(performance.now() - started < 200);
  });
});

describe('retrieval: which environment variables a project reads, in Perl, Julia and R', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();

  before(() => {
    repo = makeRepo({
      files: {
        'lib/Server.pm': `package Server;\nuse strict;\n\nsub new { bless {}, shift }\nhas tmpdir => sub { $ENV{APP_TMPDIR} || '/tmp' };\n1;\n`,
        'src/bench.jl': `module Bench\nconst PORT = parse(Int, get(ENV, "BENCH_PORT", "9381"))\nend\n`,
        'R/verbose.R': `is_verbose <- function() {\n  Sys.getenv("PKG_VERBOSE") == "true"\n}\n`,
        'README.md': '# demo\n\nSet environment variables before you start.\n',
      },
    });
  });
  after(() => repo.cleanup());

  test('each file that reads one is listed with its reading line', async () => {
    const text = await askRetrieval(source, repo.dir, 'Which environment variables does this project read?');
    assert.match(text, /lib\/Server\.pm:5: has tmpdir => sub \{ \$ENV\{APP_TMPDIR\}/);
    assert.match(text, /src\/bench\.jl:2: const PORT = parse\(Int, get\(ENV, "BENCH_PORT"/);
    assert.match(text, /R\/verbose\.R:2: Sys\.getenv\("PKG_VERBOSE"\)/);
  });
});
