// Retrieval sends the files that answer, not every file with a hit: on a real git repository, a file whose
// regions score far below the best one's (a license header beside the LICENSE, a page that names a function
// once beside its definition) stays out, in any language, while files near the best still go.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ChatMessage, ContextItem } from '../../../src/shared/types.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { input, signal } from '../input.ts';
import { retrievalSource } from './ask.ts';

const HEADER = (comment: string) =>
  `${comment} Copyright 2024 The Authors.\n${comment} Licensed under the Apache License, Version 2.0.\n${comment} You may obtain a copy of the License at the LICENSE file.\n`;

describe('retrieval: files far below the best answer stay out', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = async (content: string): Promise<ContextItem[]> => {
    const messages: ChatMessage[] = [{ role: 'user', content }];
    const result = await source.collect(
      input(repo.dir, { messages, mode: 'git-aware', wanted: ['retrieval.'] }),
      signal,
    );
    return result.items;
  };
  const paths = (items: ContextItem[]) => items.map((item) => item.path).filter(Boolean);

  before(() => {
    repo = makeRepo({
      files: {
        LICENSE: `Apache License\nVersion 2.0, January 2004\n\nTERMS AND CONDITIONS FOR USE\n${'Lorem ipsum dolor.\n'.repeat(20)}`,
        'cache/store.go': `${HEADER('//')}\npackage cache\n\nfunc Put(k string) {}\n`,
        'lib/rates.py': `${HEADER('#')}\ndef compute_rate(a, b):\n    return a / b\n`,
        'src/index.ts': `${HEADER('//')}\nexport const x = 1;\n`,
        'tpl/encoding/encoding.go':
          'package encoding\n\n// Base64Decode decodes a string.\nfunc Base64Decode(s string) (string, error) {\n\treturn decode(s)\n}\n',
        'tpl/encoding/encoding_test.go':
          'package encoding\n\nfunc TestBase64Decode(t *testing.T) {\n\tgot, _ := Base64Decode("aGk=")\n\tif got != "hi" {\n\t\tt.Fatal(got)\n\t}\n}\n',
        'tpl/encoding/init.go':
          'package encoding\n\n// registers Base64Decode and friends\nvar names = []string{"x"}\n',
      },
    });
  });
  after(() => repo.cleanup());

  test('which license: the LICENSE, not the headers that mention it', async () => {
    const items = await ask('Which license is this project released under?');
    assert.ok(paths(items).includes('LICENSE'), paths(items).join(', '));
    for (const rel of ['cache/store.go', 'lib/rates.py', 'src/index.ts']) {
      assert.ok(!paths(items).includes(rel), `${rel} stays out: ${paths(items).join(', ')}`);
    }
  });

  test('which tests exercise a function: its test and definition, not a comment that names it', async () => {
    const items = await ask('Which tests exercise Base64Decode?');
    const text = items.map((item) => item.text).join('\n');
    assert.match(text, /got, _ := Base64Decode\("aGk="\)/);
    assert.ok(!paths(items).includes('tpl/encoding/init.go'), paths(items).join(', '));
  });
});
