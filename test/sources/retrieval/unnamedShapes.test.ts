// Retrieval for questions that name their subject in a shape the code does not
// spell as a whole word: a one-word name with a typo ("onabrted"), a
// command-line option or a route that the code handles as a string literal in
// a file that mentions it dozens of times, and environment reads in the
// languages whose reads are not `getenv` (Elixir, Dart, Haskell, Scala, Laravel).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChatMessage } from '../../../src/shared/types.ts';
import { createRetrievalSource } from '../../../src/sources/retrieval/source.ts';
import { Workspaces } from '../../../src/sources/workspace.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { input, signal } from '../input.ts';
import { askRetrieval, retrievalSource } from './ask.ts';

/** Help text that spells every option many times before the code that handles them. */
const helpText = Array.from(
  { length: 60 },
  (_, i) => `  "    --bind=KEYS        binds keys to actions (example ${i}); see --bind in the manual",`,
).join('\n');

describe('retrieval: names not spelt whole, literals, environment reads', () => {
  let repo: TempRepo;
  const { deps, source } = retrievalSource();
  const ask = (content: string): Promise<string> => askRetrieval(source, repo.dir, content);

  before(() => {
    repo = makeRepo({
      files: {
        'lib/response.js':
          '// filler\n\nfunction send(res) {\n  res.on("close", onaborted);\n}\n\nfunction onaborted() {\n  return "aborted";\n}\n\nmodule.exports = { send };\n',
        'src/options.go': `package main\n\nvar usage = []string{\n${helpText}\n}\n\nfunc parse(arg string) {\n\tswitch arg {\n\tcase "--bind":\n\t\tparseBind()\n\t}\n}\n`,
        'app/routes.js': `${'// routes of the app\n'.repeat(5)}app.get('/login', showLogin);\napp.post('/logout', endSession);\n`,
        'docs/routes.md': 'The /login page shows the form.\n',
        'lib/app/config.ex': 'defmodule App.Config do\n  def port, do: System.get_env("APP_PORT")\nend\n',
        'lib/client.dart': "final proxy = Platform.environment['HTTP_PROXY_URL'];\n",
        'src/Main.hs': 'main = do\n  home <- lookupEnv "APP_HOME_DIR"\n  print home\n',
        'config/app.php': "<?php\nreturn ['key' => env('APP_SECRET_KEY')];\n",
        // Eight files with a TODO each: more than the mode sends regions of.
        ...Object.fromEntries(
          [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [
            `pkg/part${n}.py`,
            `def part${n}():\n    # TODO: retry part ${n} on failure\n    return ${n}\n`,
          ]),
        ),
      },
    });
  });
  after(() => repo.cleanup());

  test('a one-word name with a letter dropped is found by its halves', async () => {
    const text = await ask('What does onabrted do?');
    assert.match(text, /function onaborted\(\) \{/);
  });

  test('an option handled as a literal: the handling line, past sixty lines of help text naming it', async () => {
    const text = await ask('What does the --bind option do? Where is it handled?');
    assert.match(text, /case "--bind":/);
  });

  test('a route named by its URL path: the line that registers it', async () => {
    const text = await ask('Which handler serves the /login route?');
    assert.match(text, /app\.get\('\/login', showLogin\);/);
  });

  test('asked for a list, every file with a match gives a line, past the files the regions have room for', async () => {
    const text = await ask('Are there TODOs left in the code? List them.');
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) assert.match(text, new RegExp(`TODO: retry part ${n} on failure`));
  });

  test('searches cut by the deadline answer empty: the searches begun after it fail quietly, the server lives', async () => {
    // A limit so short that every search after the first ones starts past the deadline (a misspelt word takes
    // three rounds of searches); before, such a search's stopped git was an unhandled rejection that ended the process.
    const hurried = createRetrievalSource(deps, new Workspaces(deps), { timeoutMs: 2 });
    const messages: ChatMessage[] = [{ role: 'user', content: 'What does onabrted do?' }];
    const result = await hurried.collect(input(repo.dir, { messages, mode: 'quick', wanted: ['retrieval.'] }), signal);
    assert.ok(Array.isArray(result.items));
    // The work goes on behind the source's own limit: let it end inside the test.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  });

  test('environment reads in Elixir, Dart, Haskell and a PHP framework are listed', async () => {
    const text = await ask('Which environment variables does this project read?');
    for (const name of ['APP_PORT', 'HTTP_PROXY_URL', 'APP_HOME_DIR', 'APP_SECRET_KEY'])
      assert.match(text, new RegExp(name));
  });
});

describe('retrieval: a name said in prose with general nouns among its words', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = (content: string): Promise<string> => askRetrieval(source, repo.dir, content);

  before(() => {
    repo = makeRepo({
      files: {
        'lib/Loader.pm': `package Loader;\n\nsub load_class {\n  my $class = shift;\n  return 1;\n}\n\nsub class_to_file {\n  my $class = shift;\n  $class =~ s/::|'/_/g;\n  return lc $class;\n}\n\n1;\n`,
        'R/headers.R': `resp_header <- function(resp, name) {\n  resp$headers[[name]]\n}\n\nresp_retry_after <- function(resp) {\n  val <- resp_header(resp, "Retry-After")\n  as.numeric(val)\n}\n`,
        'R/retries.R': `retry_after <- function(req, resp, i) {\n  resp_retry_after(resp)\n}\n`,
        'src/lines.jl': `count_lines(path) = length(readlines(path))\n`,
      },
    });
  });
  after(() => repo.cleanup());

  test('"the class to file part": the nouns of the question are parts of the name (Perl)', async () => {
    assert.match(
      await ask("Where is the code that does the class to file part? I can't find it."),
      /sub class_to_file \{/,
    );
  });

  test("a function defined by R's <- is sent as the definition, over its callers", async () => {
    assert.match(
      await ask("Where is the code that does the resp retry after part? I can't find it."),
      /resp_retry_after <- function\(resp\) \{/,
    );
  });

  test('a one-line Julia definition said in prose ("the count lines part")', async () => {
    assert.match(await ask('Where is the code that does the count lines part?'), /count_lines\(path\) = length/);
  });
});

describe('retrieval: "how do I run just the X test", X a plain word a test file defines', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();

  before(() => {
    const mentions = Array.from(
      { length: 5 },
      (_, i) => `    // writes acknowledgements part ${i}\n    step(${i});`,
    ).join('\n');
    repo = makeRepo({
      files: {
        // Task files that say how tests run, more of them than quick mode sends files: the test's own file must
        // not lose its place to them.
        Makefile: 'test:\n\tcargo test --locked\n\nlint:\n\tcargo clippy\n',
        justfile: 'test:\n    cargo test --all\n\ncheck-tests:\n    cargo test --no-run\n',
        '.github/workflows/ci.yml':
          'jobs:\n  test:\n    steps:\n      - run: cargo test --locked\n      - run: cargo test --doc\n',
        'tests/syntax/Makefile': 'test: build\n\t./run-tests.sh\n\nbuild:\n\tmake -C fixtures test\n',
        'src/assets.rs': 'pub fn get_acknowledgements() -> String {\n    String::new()\n}\n',
        'tests/integration_tests.rs': `fn setup() {\n${mentions}\n}\n\n#[test]\nfn acknowledgements() {\n    setup();\n}\n`,
        'Tests/AppTests/CacheTests.swift':
          'import XCTest\n\nfinal class CacheTests: XCTestCase {\n  func eviction() {\n    XCTAssertTrue(true)\n  }\n}\n',
        'Sources/App/Cache.swift': 'struct Cache {\n  // eviction happens on write\n  func evict() {}\n}\n',
      },
    });
  });
  after(() => repo.cleanup());

  test('the test file that defines it (Rust), with the runner', async () => {
    const text = await askRetrieval(source, repo.dir, 'How do I run just the acknowledgements test?');
    assert.match(text, /fn acknowledgements\(\) \{/);
    assert.match(text, /cargo test --locked/);
  });

  test('the test file that defines it (Swift), not the code that mentions the word', async () => {
    assert.match(await askRetrieval(source, repo.dir, 'How do I run only the eviction test?'), /func eviction\(\) \{/);
  });
});
