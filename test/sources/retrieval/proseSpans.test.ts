// A name said in prose between an article and a noun of what code is ("the get declared fields part", "the
// run all tests part", "the build config function"), whose words are also the question's intent words
// (declared, tests, run, build): on a real git repository, the definition arrives, not the task files that
// "run" and "tests" would otherwise point at, nor a name made of the closing noun (`TestPartial`).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { analyseText } from '../../../src/shared/question.ts';
import { searchPlan } from '../../../src/sources/retrieval/source.ts';
import { cpuMs } from '../../support/cpuTime.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { askRetrieval, retrievalSource } from './ask.ts';

describe('retrieval: a name said in prose with intent words in it', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = (content: string) => askRetrieval(source, repo.dir, content);

  before(() => {
    repo = makeRepo({
      files: {
        'src/schema.py':
          'class SchemaMeta(type):\n    @classmethod\n    def get_declared_fields(mcs, klass, cls_fields):\n        return dict(cls_fields)\n',
        'scripts/resolution.ts':
          'async function runAllTests() {\n  for (const t of cases) await t();\n}\n\nrunAllTests();\n',
        'types/partial.ts': 'export type TestPartial<T> = { [K in keyof T]?: T[K] };\n',
        'tests/partial.test.ts':
          "import type { TestPartial } from '../types/partial';\nconst p: TestPartial<{ a: 1 }> = {};\n",
        'package.json': '{\n  "scripts": {\n    "test": "vitest run",\n    "test:all": "vitest run --all"\n  }\n}\n',
        '.github/workflows/test.yml':
          'jobs:\n  test:\n    steps:\n      - run: pnpm test\n      - run: pnpm run test:all\n',
        Makefile: 'test:\n\tpnpm test\n\nbuild:\n\tgo build -o bin/site ./cmd/site\n',
        'hugolib/spec.go': 'package hugolib\n\nfunc (r *Spec) BuildConfig() config.BuildConfig {\n\treturn r.cfg\n}\n',
      },
    });
  });
  after(() => repo.cleanup());

  test('"the get declared fields part": declared is an intent word, still a part of the name', async () => {
    const text = await ask('Where is the code that does the get declared fields part? I can’t find it.');
    assert.match(text, /def get_declared_fields\(/);
  });

  test('"the run all tests part": the function, not the test tasks nor `TestPartial`', async () => {
    const text = await ask('Where is the code that does the run all tests part? I can’t find it.');
    assert.match(text, /async function runAllTests\(\) \{/);
    assert.doesNotMatch(text, /vitest run --all/);
    assert.doesNotMatch(text, /TestPartial/);
  });

  test('"the build config function" (Go): the method', async () => {
    const text = await ask('What does the build config function return?');
    assert.match(text, /func \(r \*Spec\) BuildConfig\(\) config\.BuildConfig \{/);
  });

  test('a misspelt name holding an intent word ("Buildonfig"): its nearest definition, not the build recipes', async () => {
    const text = await ask('What does Buildonfig do?');
    assert.match(text, /func \(r \*Spec\) BuildConfig\(\) config\.BuildConfig \{/);
    assert.doesNotMatch(text, /go build -o bin\/site/);
  });

  test('"how do I run the test suite" names nothing: the tasks still answer', async () => {
    const text = await ask('How do I run the test suite?');
    assert.match(text, /vitest run/);
  });
});

test('a question of nothing but spans ("x y part x y part …"): the plan in linear time', async () => {
  // Each span looked for a longer one holding its closing noun among all the spans. A span is at most six words
  // long, so only the next few can hold it. The parse window keeps 128 KB of a message (14,000 such spans, ~0.25 s
  // when quadratic); the plan is given 540 KB here, past the window, so that linear and quadratic lie far apart
  // (~0.1 s against ~4 s) whatever else this process's threads do meanwhile.
  const question = { ...analyseText('the x y part'), text: 'x y part '.repeat(60_000) };
  searchPlan(analyseText('the x y part'));
  const { ms, result } = await cpuMs(() => searchPlan(question));
  assert.deepEqual(result.proseWords.slice(0, 2), ['x', 'y']);
  assert.ok(ms < 1500, `${ms} ms of CPU`);
});
