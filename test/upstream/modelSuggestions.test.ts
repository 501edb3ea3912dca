import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { suggestionSentence, suggestModels } from '../../src/upstream/modelSuggestions.ts';

const installed = [
  'qwen2.5-coder:7b',
  'qwen2.5-coder:1.5b',
  'llama3.2:3b',
  'nomic-embed-text:latest',
  'hf.co/org/Phi-3:Q4',
];

describe('suggestModels', () => {
  test("a name without a tag gets the installed tags of that model (Ollama reads it as ':latest')", () => {
    assert.deepEqual(suggestModels('qwen2.5-coder', installed), {
      tags: ['qwen2.5-coder:7b', 'qwen2.5-coder:1.5b'],
      similar: [],
    });
  });

  test('a tag that is not pulled gets the ones that are', () => {
    assert.deepEqual(suggestModels('qwen2.5-coder:14b', installed).tags, ['qwen2.5-coder:7b', 'qwen2.5-coder:1.5b']);
    assert.deepEqual(suggestModels('library/llama3.2', installed).tags, ['llama3.2:3b']);
  });

  test('a misspelt or partial name gets the nearest names; an unrelated one gets none', () => {
    assert.deepEqual(suggestModels('qwen2.5-codr', installed).similar.slice(0, 2), [
      'qwen2.5-coder:1.5b',
      'qwen2.5-coder:7b',
    ]);
    assert.deepEqual(suggestModels('llama3', installed).similar, ['llama3.2:3b']);
    assert.deepEqual(suggestModels('nomic-embed', installed).similar, ['nomic-embed-text:latest']);
    assert.deepEqual(suggestModels('mistral', installed), { tags: [], similar: [] });
  });

  test('the sentence names them', () => {
    assert.equal(
      suggestionSentence('qwen2.5-coder', suggestModels('qwen2.5-coder', installed)),
      ' Installed tags of qwen2.5-coder: "qwen2.5-coder:7b", "qwen2.5-coder:1.5b"; ask for one of them by its full name.',
    );
    assert.equal(suggestionSentence('mistral', suggestModels('mistral', installed)), '');
  });
});
