// Retrieval's history questions with the history index (index/historyIndex.ts)
// on a real repository: while the index builds, git log answers and the
// report says what was not searched; once it is current, "which commit added
// X" gets the commits whose changed lines hold X, with their message and the
// matching lines, and a file's history is the newest commit that touched it.
// (Node only: on Deno a request that awaits only git does not hold the test's
// event loop, see the report of the hist7 branch.)

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { dedupeKeys } from '../../../src/pipeline/collect.ts';
import { openIndexDatabase } from '../../../src/pipeline/indexDatabase.ts';
import { silentLogger } from '../../../src/shared/logger.ts';
import { createSourceSet } from '../../../src/sources/index.ts';
import { makeRepo } from '../../support/gitRepo.ts';
import { input, signal, testDeps } from '../input.ts';

const deps = () => testDeps({ openIndex: (root) => openIndexDatabase(root, silentLogger) });

test('retrieval: history from git while the index builds (and says so), then from the index', async () => {
  const repo = makeRepo({
    files: { 'src/links.py': 'def other():\n    pass\n' },
    commits: [
      {
        message: 'Parse the Link header\n\nGitHub pages its results with it.',
        files: {
          'src/links.py':
            'def other():\n    pass\n\ndef parse_links(value):\n    return value.split(",")  # see rfc/8288\n',
        },
      },
      { message: 'Tidy the imports', files: { 'src/other.py': 'import os\n' } },
    ],
  });
  const set = createSourceSet(deps(), { index: { waitMs: 0, history: { waitMs: 0 } } });
  const retrieval = set.sources.find((source) => source.name === 'retrieval');
  assert.ok(retrieval);
  try {
    const ask = () =>
      retrieval.collect(
        input(repo.dir, {
          text: 'Which commit added parse_links, and why?',
          mode: 'git-aware',
          wanted: ['retrieval.'],
        }),
        signal,
      );
    const cold = await ask();
    const note = cold.skipped?.find((entry) => entry.path === '(retrieval history index)');
    assert.match(
      note?.reason ?? '',
      /history index not ready.*read with git log, commits that changed the named things not searched/,
    );
    assert.ok(
      cold.items.some((item) => item.key === 'retrieval.history'),
      'git log still answers',
    );
    await set.settle(repo.dir);
    const warm = await ask();
    assert.equal(
      warm.skipped?.find((entry) => entry.path === '(retrieval history index)'),
      undefined,
    );
    const changes = warm.items.find((item) => item.title.startsWith('commits whose changes touch'));
    assert.ok(changes, warm.items.map((item) => item.title).join('; '));
    assert.match(changes.text, /Parse the Link header\n {4}GitHub pages its results with it\./);
    assert.match(changes.text, /src\/links\.py\n@@ [^\n]+\n\+def parse_links\(value\):/);
    assert.doesNotMatch(changes.text, /Tidy the imports/);
    // A pasted line (its slashes make it look like a path to the analysis): the commit whose change added it.
    const line = await retrieval.collect(
      input(repo.dir, {
        text: 'Which commit introduced this line in src/links.py, and why?\n`return value.split(",")  # see rfc/8288`',
        mode: 'git-aware',
        wanted: ['retrieval.'],
      }),
      signal,
    );
    const added = line.items.find((item) => item.title.startsWith('commits whose changes touch'));
    assert.match(added?.text ?? '', /Parse the Link header[\s\S]*\+ {4}return value\.split\(","\) {2}# see rfc\/8288/);
    // A file's history comes from the index too: the newest commit that touched it, not HEAD.
    const file = await retrieval.collect(
      input(repo.dir, { text: 'When was links.py last changed?', mode: 'git-aware', wanted: ['retrieval.'] }),
      signal,
    );
    const log = file.items.find((item) => item.key === 'retrieval.history');
    assert.match(log?.text ?? '', /Parse the Link header[\s\S]*\+def parse_links/);
  } finally {
    set.close();
    repo.cleanup();
  }
});

test('retrieval: a pasted line asked about in history terms gets the commit that added it, beside the file log', async () => {
  const line = 'total = compute_rate(amount, days)  # per day';
  let rates = `def compute_rate(amount, days):\n    return amount / days\n\ndef charge(amount, days):\n    ${line}\n    return total\n`;
  const later = [];
  // Newer commits that also change lines holding the line's names: by name alone they come first.
  for (const n of [1, 2, 3, 4]) {
    rates += `\ndef fee_${n}(amount, days):\n    return compute_rate(amount, days) * ${n}\n`;
    later.push({ message: `Add fee tier ${n} on top of the rate`, files: { 'src/rates.py': rates } });
  }
  const repo = makeRepo({
    files: { 'src/rates.py': 'def compute_rate(amount, days):\n    return amount / days\n' },
    commits: [
      {
        message: 'Charge by the day\n\nInvoices were billed by the month.',
        files: { 'src/rates.py': rates.slice(0, rates.indexOf('\ndef fee_1')) },
      },
      ...later,
    ],
  });
  const set = createSourceSet(deps(), { index: { waitMs: 0, history: { waitMs: 0 } } });
  const retrieval = set.sources.find((source) => source.name === 'retrieval');
  assert.ok(retrieval);
  try {
    await set.settle(repo.dir);
    const result = await retrieval.collect(
      input(repo.dir, {
        text: `Which commit introduced this line in src/rates.py, and why?\n\`${line}\``,
        mode: 'git-aware',
        wanted: ['retrieval.'],
      }),
      signal,
    );
    // The pipeline keeps one item per key: what it keeps is what the model can receive.
    const kept = dedupeKeys(result.items, silentLogger);
    const changes = kept.find((item) => item.title.startsWith('commits whose changes touch'));
    assert.ok(changes, kept.map((item) => item.title).join('; '));
    assert.match(
      changes.text,
      /Charge by the day\n {4}Invoices were billed by the month\.[\s\S]*\+ {4}total = compute_rate/,
    );
    assert.doesNotMatch(changes.text, /fee tier/);
    assert.ok(
      kept.some((item) => item.title === 'recent commits of the named files'),
      'the file log is still sent',
    );
    const log = kept.find((item) => item.title === 'recent commits of the named files');
    assert.ok(log && changes.priority > log.priority, 'under the history cap the answer outranks the log');
    // The current code around the line's names (compute_rate's definition, its callers) is not the answer.
    assert.deepEqual(
      kept.filter((item) => item.key.startsWith('retrieval.code.')).map((item) => item.key),
      [],
    );
    // Asked about the same names without a pasted line, the code is still searched.
    const uses = await retrieval.collect(
      input(repo.dir, { text: 'Where is compute_rate called?', mode: 'git-aware', wanted: ['retrieval.'] }),
      signal,
    );
    assert.ok(uses.items.some((item) => item.key === 'retrieval.code.src/rates.py'));
  } finally {
    set.close();
    repo.cleanup();
  }
});

test('retrieval: a pasted line’s commit while the history index is not built: git log -S in the named file', async () => {
  // The line is added by one commit, then six later commits change the same file: the file's recent log (five
  // commits) no longer shows the one that added it.
  const body = (n: number) =>
    `def rate(a, b):\n    return a / b if b else 0  # guard the zero\n${Array.from({ length: n }, (_, i) => `\ndef step${i}():\n    return ${i}\n`).join('')}`;
  const repo = makeRepo({
    files: { 'lib/rates.py': 'def rate(a, b):\n    return a / b\n' },
    commits: [
      {
        message: 'Guard the rate against a zero divisor\n\nA store with no sales divided by zero.',
        files: { 'lib/rates.py': body(0) },
      },
      ...[1, 2, 3, 4, 5, 6].map((n) => ({ message: `Add step ${n}`, files: { 'lib/rates.py': body(n) } })),
    ],
  });
  // No history index at all: the same as one still building.
  const set = createSourceSet(testDeps(), {});
  const retrieval = set.sources.find((source) => source.name === 'retrieval');
  assert.ok(retrieval);
  try {
    const result = await retrieval.collect(
      input(repo.dir, {
        text: 'Which commit introduced this line in lib/rates.py, and why?\n`return a / b if b else 0  # guard the zero`',
        mode: 'git-aware',
        wanted: ['retrieval.'],
      }),
      signal,
    );
    const changes = result.items.find((item) => item.key === 'retrieval.history.changes');
    assert.match(changes?.text ?? '', /Guard the rate against a zero divisor/);
    assert.match(changes?.text ?? '', /A store with no sales divided by zero\./);
    assert.doesNotMatch(changes?.text ?? '', /Add step/);
  } finally {
    set.close();
    repo.cleanup();
  }
});

test('retrieval: "who last changed sendfile", a plain word the code defines: its definition’s last commit', async () => {
  // The definition's commit is older than the five newest commits, which touch other files.
  const repo = makeRepo({
    files: { 'lib/response.js': 'function send(res) {\n  return res;\n}\n' },
    commits: [
      {
        message: 'Send files with byte ranges',
        files: {
          'lib/response.js':
            'function send(res) {\n  return res;\n}\n\nfunction sendfile(res, file) {\n  return res.pipe(file);\n}\n',
        },
      },
      ...[1, 2, 3, 4, 5, 6].map((n) => ({
        message: `Tidy helper ${n}`,
        files: { [`lib/helper${n}.js`]: `// ${n}\n` },
      })),
    ],
  });
  const set = createSourceSet(testDeps(), {});
  const retrieval = set.sources.find((source) => source.name === 'retrieval');
  assert.ok(retrieval);
  try {
    const result = await retrieval.collect(
      input(repo.dir, { text: 'Who last changed sendfile?', mode: 'git-aware', wanted: ['retrieval.'] }),
      signal,
    );
    const history = result.items.find((item) => item.key === 'retrieval.history');
    assert.match(history?.title ?? '', /history of sendfile/);
    assert.match(history?.text ?? '', /Send files with byte ranges/);
  } finally {
    set.close();
    repo.cleanup();
  }
});

test('retrieval: a name defined in two files, asked about in history terms: both files’ last changes', async () => {
  // A function and a method of the same name; the method's file sorts first, the function's changed last.
  const repo = makeRepo({
    files: {
      'bin/GithubAPI.js': 'class GithubAPI {\n  async getTags() {\n    return [];\n  }\n}\n',
      'bin/repo.js': 'export const exec = () => 0;\n',
    },
    commits: [
      {
        message: 'Label published pull requests',
        files: { 'bin/GithubAPI.js': 'class GithubAPI {\n  async getTags() {\n    return this.get();\n  }\n}\n' },
      },
      {
        message: 'Resolve the release tag from the package version',
        files: {
          'bin/repo.js':
            "export const exec = () => 0;\nexport const getTags = async (pattern = 'v*') => {\n  return exec(pattern);\n};\n",
        },
      },
    ],
  });
  const set = createSourceSet(testDeps(), {});
  const retrieval = set.sources.find((source) => source.name === 'retrieval');
  assert.ok(retrieval);
  try {
    const result = await retrieval.collect(
      input(repo.dir, { text: 'When was `getTags` last changed, and why?', mode: 'git-aware', wanted: ['retrieval.'] }),
      signal,
    );
    const history = result.items.find((item) => item.key === 'retrieval.history');
    assert.match(history?.text ?? '', /Resolve the release tag from the package version/);
    assert.match(history?.text ?? '', /Label published pull requests/);
  } finally {
    set.close();
    repo.cleanup();
  }
});

test('retrieval: "compared to v1.x", a branch the question names: its commits since that branch, not a file named v1.x', async () => {
  // The default branch is neither main nor master, and its name looks like a file name.
  const repo = makeRepo({
    initialBranch: 'v1.x',
    files: { 'lib/retry.js': 'export const attempts = 2;\n' },
    branches: ['release/2.0'],
    checkout: 'feature',
  });
  fs.writeFileSync(
    path.join(repo.dir, 'lib/retry.js'),
    'export const attempts = 2;\nexport const backoffFactor = 3;\n',
  );
  execFileSync('git', ['commit', '-q', '-am', 'Use a gentler backoff when the mirror is slow'], {
    cwd: repo.dir,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'T',
      GIT_AUTHOR_EMAIL: 't@example.invalid',
      GIT_COMMITTER_NAME: 'T',
      GIT_COMMITTER_EMAIL: 't@example.invalid',
    },
  });
  const set = createSourceSet(testDeps(), {});
  const retrieval = set.sources.find((source) => source.name === 'retrieval');
  assert.ok(retrieval);
  try {
    // Loose refs first, then the same refs packed (a clone's branches and tags are in packed-refs).
    for (const packed of [false, true]) {
      if (packed) execFileSync('git', ['pack-refs', '--all'], { cwd: repo.dir });
      for (const question of [
        'What does my branch change compared to v1.x?',
        'What did I change vs release/2.0 on this branch?',
      ]) {
        const result = await retrieval.collect(
          input(repo.dir, { text: question, mode: 'git-aware', wanted: ['retrieval.'] }),
          signal,
        );
        const history = result.items.find((item) => item.key === 'retrieval.history');
        assert.match(
          history?.title ?? '',
          /commits of the branch since (v1\.x|release\/2\.0)/,
          `${question} ${packed}`,
        );
        assert.match(history?.text ?? '', /export const backoffFactor = 3;/, `${question} ${packed}`);
      }
    }
  } finally {
    set.close();
    repo.cleanup();
  }
});

test('retrieval: a pasted line holding markup or a URL path (`</a>`, `/docs`) still gets its commit and the file log', async () => {
  // The tokenizer reads `</a>` as a path `/a`; as a pathspec it lies outside the repository, and git refused the
  // whole log (exit 128): no history at all for an HTML, JSX or PHP line.
  const lines: Record<string, string> = {
    'docs/conf.py': `copyright = '<a href="https://example.org">Ann Example</a> and contributors'`,
    'web/src/Nav.tsx': 'return <a href="/docs/start">Start here</a>;',
    'views/footer.php': "echo '<b>' . $name . '</b> signed in';",
  };
  const repo = makeRepo({
    files: { 'docs/conf.py': 'x = 1\n', 'web/src/Nav.tsx': 'export {};\n', 'views/footer.php': '<?php\n' },
    commits: Object.entries(lines).map(([rel, line]) => ({
      message: `Reword ${rel}`,
      files: { [rel]: `${line}\n` },
    })),
  });
  const set = createSourceSet(testDeps(), {});
  const retrieval = set.sources.find((source) => source.name === 'retrieval');
  assert.ok(retrieval);
  try {
    for (const [rel, line] of Object.entries(lines)) {
      const result = await retrieval.collect(
        input(repo.dir, {
          text: `Which commit introduced this line in ${rel}, and why?\n\`${line}\``,
          mode: 'git-aware',
          wanted: ['retrieval.'],
        }),
        signal,
      );
      const history = result.items.filter((item) => item.key.startsWith('retrieval.history'));
      assert.ok(
        history.some((item) => item.text.includes(`Reword ${rel}`)),
        `${rel}: ${JSON.stringify(result.skipped)}`,
      );
      assert.ok(
        !(result.skipped ?? []).some((skip) => skip.path === '(retrieval history)'),
        JSON.stringify(result.skipped),
      );
    }
  } finally {
    set.close();
    repo.cleanup();
  }
});

test('retrieval: "when was that file last changed" follows the code’s definition, not a document’s example of it', async () => {
  // Documents sort before the sources by path (`docs/` < `src/`) and show the definition as an example; their
  // history is not the file's the conversation is about.
  const repo = makeRepo({
    files: {
      'docs/extending.rst':
        'Override it:\n\n    class MySchema(Schema):\n        def handle_error(self, error, data):\n            raise AppError(error)\n',
      'docs/upgrading.rst': 'Now:\n\n    def handle_error(self, error, data, *, many):\n        pass\n',
      'README.md': '```js\nfunction formatValue(value) {\n  return String(value);\n}\n```\n',
      'docs/api.md': '```js\nfunction formatValue(value, options) {}\n```\n',
      'src/app/schema.py': 'class Schema:\n    def handle_error(self, error, data):\n        pass\n',
      'src/format.js': 'export function formatValue(value) {\n  return String(value);\n}\n',
    },
    commits: [
      { message: 'Reword the extending guide', files: { 'docs/extending.rst': 'Override it (see the API).\n' } },
      {
        message: 'Type the schema hooks',
        files: {
          'src/app/schema.py':
            'class Schema:\n    def handle_error(self, error: Exception, data) -> None:\n        pass\n',
        },
      },
      {
        message: 'Format dates too',
        files: {
          'src/format.js':
            'export function formatValue(value) {\n  return value instanceof Date ? value.toISOString() : String(value);\n}\n',
        },
      },
      {
        message: 'Tidy the README',
        files: { 'README.md': 'See the docs.\n```js\nfunction formatValue(value) {}\n```\n' },
      },
    ],
  });
  const set = createSourceSet(testDeps(), {});
  const retrieval = set.sources.find((source) => source.name === 'retrieval');
  assert.ok(retrieval);
  try {
    for (const [name, subject] of [
      ['handle_error', 'Type the schema hooks'],
      ['formatValue', 'Format dates too'],
    ] as const) {
      const messages = [
        { role: 'user' as const, content: `Where is \`${name}\` defined?` },
        { role: 'assistant' as const, content: 'In the sources.' },
        { role: 'user' as const, content: 'When was that file last changed, and why?' },
      ];
      const result = await retrieval.collect(
        input(repo.dir, {
          messages,
          text: 'When was that file last changed, and why?',
          mode: 'git-aware',
          wanted: ['retrieval.'],
        }),
        signal,
      );
      const history = result.items.filter((item) => item.key.startsWith('retrieval.history')).map((item) => item.text);
      assert.match(history.join('\n'), new RegExp(subject), `${name}: ${history.join('\n')}`);
    }
  } finally {
    set.close();
    repo.cleanup();
  }
});
