// Optional semantic retrieval (issue 23, point 6), end to end with the real
// parts: the fake Ollama's /api/embed (deterministic vectors: equal texts get
// equal vectors), the real Ollama upstream client, the real redactor, a real
// git repository and the index's SQLite file. Chunks are embedded in the
// background with their secrets redacted, the vectors are stored in the
// index, and a question no word of which points at the answer finds the chunk
// nearest to it in meaning (the fake is told the two texts mean the same).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openIndexDatabase } from '../../../src/pipeline/indexDatabase.ts';
import { redactingEmbedder } from '../../../src/pipeline/indexEmbedder.ts';
import { createRedactor } from '../../../src/redact/createRedactor.ts';
import { silentLogger } from '../../../src/shared/logger.ts';
import type { Embedder } from '../../../src/sources/deps.ts';
import { createSourceSet } from '../../../src/sources/index.ts';
import { createOllamaUpstream } from '../../../src/upstream/ollamaUpstream.ts';
import { type FakeOllama, startFakeOllama } from '../../support/fakeOllama.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { input, signal, testDeps } from '../input.ts';

const QUESTION = 'what happens to money we give back when the plastic is past its date';
const REFUNDS = 'Refund policy for expired cards: refunds go to the account balance, never to the card.';
const MEANING = [1, 0, 0, 0, 0, 0, 0, 0];
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

describe('semantic retrieval (--embed-model)', () => {
  let repo: TempRepo;
  let fake: FakeOllama;
  let embedder: Embedder;

  before(async () => {
    fake = await startFakeOllama();
    fake.reply('qwen2.5-coder:7b', {
      embedding: (text) => (text === QUESTION || text.startsWith('Refund policy') ? MEANING : undefined),
    });
    const upstream = createOllamaUpstream({ baseUrl: fake.url });
    const made = redactingEmbedder('qwen2.5-coder:7b', upstream, await createRedactor());
    assert.ok(made);
    embedder = made;
    repo = makeRepo({
      files: {
        // Alike in meaning to the question, no word in common: the fake gives both the same vector.
        'docs/refunds.md': REFUNDS,
        'src/pay.py': 'def charge(card, amount):\n    return card.debit(amount)\n',
        'src/settings.py': `GITHUB_TOKEN = "${TOKEN}"\n`,
        'README.md': '# Shop\n\nA small shop.\n',
      },
    });
  });

  after(async () => {
    repo.cleanup();
    await fake.close();
  });

  const ask = async (withEmbedder: boolean) => {
    const set = createSourceSet(
      testDeps({
        openIndex: (root) => openIndexDatabase(root, silentLogger),
        embedder: withEmbedder ? embedder : undefined,
      }),
    );
    try {
      const index = set.index(repo.dir);
      assert.ok(index);
      await index.warm();
      await index.embedChunks();
      const retrieval = set.sources.find((source) => source.name === 'retrieval');
      const result = await retrieval?.collect(
        input(repo.dir, { text: QUESTION, mode: 'git-aware', wanted: ['retrieval.'] }),
        signal,
      );
      return { result, counts: index.store.vectorCounts(), partial: index.vectorStatus()?.partial };
    } finally {
      set.close();
    }
  };

  test('embeds the redacted chunks in the background, stores their vectors, and finds the nearest chunk', async () => {
    const without = await ask(false);
    assert.ok(!without.result?.items.some((item) => item.path === 'docs/refunds.md'), 'no word of it points there');
    assert.equal(fake.embeds.length, 0, 'off by default: nothing is embedded');

    const withVectors = await ask(true);
    assert.equal(withVectors.partial, undefined, 'every chunk has its vector');
    assert.equal(withVectors.counts.vectors, withVectors.counts.chunks);
    assert.ok(withVectors.counts.vectors >= 4);
    assert.ok(
      withVectors.result?.items.some((item) => item.path === 'docs/refunds.md' && item.text.includes('expired cards')),
      'the chunk nearest in meaning is sent',
    );
    // What left the process: every chunk and the question, the secret redacted out of them.
    const sent = fake.embeds.flatMap((embed) => embed.body.input as string[]);
    assert.ok(sent.includes(QUESTION));
    assert.ok(
      sent.some((text) => text.includes('GITHUB_TOKEN')),
      'the settings chunk was embedded',
    );
    assert.ok(!sent.some((text) => text.includes(TOKEN)), 'never the secret');
    assert.ok(fake.embeds.every((embed) => embed.body.model === 'qwen2.5-coder:7b'));
  });

  test('a failing embedding model leaves retrieval answering by words, and the report says so', async () => {
    const broken: Embedder = { model: 'missing-model', embed: () => Promise.reject(new Error('model not found')) };
    const set = createSourceSet(
      testDeps({ openIndex: (root) => openIndexDatabase(root, silentLogger), embedder: broken }),
    );
    try {
      await set.index(repo.dir)?.warm();
      await set.index(repo.dir)?.embedChunks();
      const retrieval = set.sources.find((source) => source.name === 'retrieval');
      const result = await retrieval?.collect(
        input(repo.dir, { text: 'Where is charge defined?', mode: 'git-aware', wanted: ['retrieval.'] }),
        signal,
      );
      assert.ok(result?.items.some((item) => item.path === 'src/pay.py'));
      const note = result?.skipped?.find((entry) => entry.path === '(retrieval index)')?.reason ?? '';
      assert.match(note, /semantic ranking over 0 of \d+ chunks \(embedding failed: model not found\)/);
    } finally {
      set.close();
    }
  });
});
