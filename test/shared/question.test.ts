// The question analysis every stage reads (issue 23, part 1): what a question
// names (identifiers in every shape, paths, quoted strings, error text,
// packages), what it asks for (intents), what a follow-up is about, and that
// a huge or degenerate question is analysed in linear time.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyseQuestion, analyseText, pathsInPlay, subjectIdentifiers } from '../../src/shared/question.ts';
import type { ChatMessage } from '../../src/shared/types.ts';
import { cpuMs } from '../support/cpuTime.ts';

const names = (text: string) => analyseText(text).identifiers.map((id) => id.term);

describe('question analysis', () => {
  test('identifiers in every shape people write them, not plain words', () => {
    assert.deepEqual(names('Where is parseInvoice defined?'), ['parseInvoice']);
    assert.deepEqual(names('what does max_retries do'), ['max_retries']);
    assert.deepEqual(names('is OrderService.create async?'), ['OrderService.create']);
    assert.deepEqual(names('explain rates::compute_rate and Ledger#post'), ['rates::compute_rate', 'Ledger#post']);
    assert.deepEqual(names('who calls render() here?'), ['render']);
    assert.deepEqual(names('where is `store` set'), ['store']);
    assert.deepEqual(names('where is the environment variable NO_COLOR or TERM read, per the API docs?'), [
      'NO_COLOR',
      'TERM',
    ]);
    assert.deepEqual(names('How does the store work, e.g. on save?'), []);
    const dotted = analyseText('is `a.b.Client` used').identifiers[0];
    assert.deepEqual(dotted?.tries, ['a.b.Client', 'b.Client', 'Client']);
  });

  test('a plain word beside a kind noun is a guessed name, and still a word of the prose', () => {
    const q = analyseText('Which files import the testutil module? And the retry function?');
    assert.deepEqual(
      q.identifiers.map((id) => [id.term, id.guessed]),
      [
        ['testutil', true],
        ['retry', true],
      ],
    );
    assert.ok(q.words.includes('testutil') && q.words.includes('retry'));
    // A descriptor before the noun is not a name; a code-shaped name is not a guess.
    assert.deepEqual(names('where is the environment variable used, and the parseConfig function?'), ['parseConfig']);
    assert.equal(analyseText('the parseConfig function').identifiers[0]?.guessed, undefined);
    // A capital inside a sentence is a proper name, so a type's; the first word of a sentence is not.
    assert.deepEqual(
      analyseText('Which classes extend Printer? Where is Style used.').identifiers.map((id) => [id.term, id.guessed]),
      [
        ['Printer', true],
        ['Style', true],
      ],
    );
    assert.deepEqual(names('Which types implement the trait?'), []);
    assert.deepEqual(names('Where do we create new Command objects?'), ['Command']);
    // A command-line option is searched as the code spells it: with its dashes, and without when it has inner ones.
    assert.deepEqual(analyseText('What does the --dry-run option do? And --verbose?').quoted, [
      '--dry-run',
      'dry-run',
      '--verbose',
    ]);
    // A name holding an intent's word asks for no such answer: `BuildConfig`, a misspelt `Buildonfig`,
    // `build_config`, `ConfigLoader`, `TestHelpers` are things asked about, not a build, settings or tests.
    for (const [text, intent] of [
      ['What does BuildConfig do?', 'build'],
      ['What does Buildonfig do?', 'build'],
      ['Where is build_config defined?', 'build'],
      ['Where is ConfigLoader defined?', 'configuration'],
      ['What does `TestHelpers.reset` do?', 'tests'],
    ] as const) {
      assert.ok(!analyseText(text).intents.includes(intent), `${text} is not about ${intent}`);
    }
    assert.ok(analyseText('How do I build the docs with BuildConfig set?').intents.includes('build'));
    // History intents: when a file last changed, what the branch changes.
    assert.ok(analyseText('When was args.go last changed?').intents.includes('history'));
    assert.ok(analyseText('What does my branch change compared to main?').intents.includes('history'));
  });

  test('paths, file names, quoted strings, error lines and packages', () => {
    const q = analyseText(
      'Why does @src/app.ts:12 fail with "connection refused"? See Makefile and @types/node.\n' +
        'TypeError: Cannot read properties of undefined\nWhich version of the package serde do we use?',
    );
    assert.deepEqual(
      q.paths.map((p) => p.token),
      // `@x` is also a mention (`@src/app.ts`): the path is tried, and resolved only if it exists.
      ['src/app.ts', 'Makefile', 'types/node'],
    );
    assert.deepEqual(q.quoted, ['connection refused']);
    assert.deepEqual(q.errors, ['TypeError: Cannot read properties of undefined']);
    assert.ok(q.packages.includes('@types/node') && q.packages.includes('serde'), q.packages.join(','));
    assert.ok(q.intents.includes('version'));
  });

  test("a package's name in any ecosystem's spelling: slashes, a scope, Perl's and Maven's colons", () => {
    const packagesOf = (text: string) => analyseText(text).packages;
    assert.deepEqual(packagesOf('Which version of IO::Socket::IP does this depend on?'), ['IO::Socket::IP']);
    assert.deepEqual(packagesOf('Which version of com.google.guava:guava is pinned?'), ['com.google.guava:guava']);
    assert.deepEqual(packagesOf('Which version of league/uri do we use?'), ['league/uri']);
    assert.deepEqual(packagesOf('What is the version of serde: the one in Cargo.toml?'), ['serde']);
  });

  test('version numbers as written, and no part of a longer dotted token', () => {
    const versionsOf = (text: string) => analyseText(text).versions;
    assert.deepEqual(versionsOf('What changed in version 8.1.0?'), ['8.1.0']);
    assert.deepEqual(versionsOf('Does it run on Python 3.12, or 3.13.1.'), ['3.12', '3.13.1']);
    assert.deepEqual(versionsOf('Moving from v2.3 to v3.0.0-rc.1: what broke?'), ['v2.3', 'v3.0.0-rc.1']);
    assert.deepEqual(versionsOf('see a.b.1.2, 1.2.3.4.5, x1.2, 1.2-foo and 1.2x'), []);
    // A version inside a code block is output, not the question.
    assert.deepEqual(versionsOf('why?\n```\nnode v20.11.1\n```'), []);
  });

  test('intent words select kinds of evidence', () => {
    const intents = (text: string) => analyseText(text).intents;
    assert.ok(intents('who calls parseInvoice?').includes('uses'));
    assert.ok(intents('what did the last commit change?').includes('history'));
    assert.ok(intents('who originally wrote core.py?').includes('history'));
    assert.ok(intents('who created utils.py').includes('history'));
    assert.ok(intents('how do I run the test suite?').includes('tests'));
    assert.ok(intents('how is it built and linted').includes('build'));
    assert.ok(intents('where is the timeout setting read').includes('configuration'));
    assert.ok(intents('which version of urllib3 is pinned').includes('version'));
    assert.deepEqual(intents('hello there'), []);
  });

  test('a follow-up that names nothing is about the earlier turn', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'What does `mergeSetting` in lib/sessions.py do?' },
      { role: 'assistant', content: 'It merges.' },
      { role: 'user', content: 'And where is it used?' },
    ];
    const q = analyseQuestion(messages);
    assert.deepEqual(q.identifiers, []);
    assert.equal(q.subject?.turnsBack, 1);
    assert.deepEqual(
      subjectIdentifiers(q).map((id) => id.term),
      ['mergeSetting'],
    );
    assert.ok(q.intents.includes('uses'));
    // The file named in the old turn is in play (instructions, manifests) but not the latest turn's own.
    assert.deepEqual(q.paths, []);
    assert.deepEqual(
      pathsInPlay(q).map((p) => p.token),
      ['lib/sessions.py'],
    );
    // A turn that names something is about that.
    const next = analyseQuestion([
      ...messages,
      { role: 'assistant', content: 'x' },
      { role: 'user', content: 'and `other`?' },
    ]);
    assert.equal(next.subject, undefined);
  });

  test('a 1 MB question, or one repeated character, is analysed in linear time', async () => {
    const cases = [
      'a'.repeat(1 << 20),
      '.'.repeat(1 << 20),
      '`'.repeat(1 << 20),
      'a.'.repeat(1 << 19),
      'Error: '.repeat(150_000),
      'src/'.repeat(1 << 18),
      `${'x('.repeat(1 << 19)}`,
      Array.from({ length: 60_000 }, (_, i) => `fooBar${i} src/f${i}.ts "q${i}"`).join(' '),
    ];
    for (const text of cases) {
      // CPU time, not the clock's (cpuTime.ts): about 10-100 ms each here, where quadratic work on 1 MB
      // would take hours.
      const { ms, result: q } = await cpuMs(() => analyseQuestion([{ role: 'user', content: text }]));
      assert.ok(ms < 1_500, `${JSON.stringify(text.slice(0, 12))}… took ${Math.round(ms)} ms of CPU`);
      assert.ok(q.identifiers.length <= 24 && q.paths.length <= 24);
    }
  });
});
