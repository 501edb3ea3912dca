// The redactor's word lists live in rules/words.json (issue 28 point 4): loaded
// and checked like the rule files, and the judgements read them from there.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { classifyValue } from '../../src/redact/classifyValue.ts';
import { isPlaceholder } from '../../src/redact/validators.ts';
import { DEFAULT_WORDS_FILE, loadWordLists, WORDS } from '../../src/redact/wordLists.ts';

const root = mkdtempSync(join(tmpdir(), 'ctxproxy-words-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('the shipped word lists load, and every judgement that names a list reads it', () => {
  const lists = loadWordLists(DEFAULT_WORDS_FILE);
  for (const [name, words] of Object.entries(lists)) assert.ok(words.size > 0, name);
  // One word of each list, judged through the code that reads the list.
  assert.ok(WORDS.placeholder.has('changeme') && isPlaceholder('changeme'));
  assert.ok(WORDS.defaultCredentials.has('minioadmin') && isPlaceholder('minioadmin'));
  assert.ok(WORDS.compoundParts.has('staple') && isPlaceholder('correct-horse-battery-staple'));
  assert.ok(WORDS.madeUpParts.has('wrong') && isPlaceholder('zabbix-wrong'));
  assert.ok(WORDS.runTogether.has('super') && isPlaceholder('supersecure'));
  assert.ok(WORDS.hexWords.has('beef') && classifyValue('deadbeef', "{token: '").kind !== 'literal');
  assert.ok(
    WORDS.nameFillers.has('k8s') &&
      classifyValue('etcd-cluster-k8s', 'clusterToken: ', 'etcd/v.yaml').kind !== 'literal',
  );
  assert.ok(WORDS.functionWords.has('the') && classifyValue('i-am-the-worst', "token: '").kind !== 'literal');
});

test('a malformed word list fails the load with the file and the place', () => {
  const file = join(root, 'words.json');
  const good = JSON.parse(
    JSON.stringify({
      description: 'd',
      ...Object.fromEntries(Object.keys(WORDS).map((k) => [k, { description: 'd', words: ['a'] }])),
    }),
  );
  writeFileSync(file, JSON.stringify(good));
  assert.equal(loadWordLists(file).placeholder.size, 1);
  writeFileSync(file, JSON.stringify({ ...good, placeholder: { description: 'd', words: ['ChangeMe'] } }));
  assert.throws(() => loadWordLists(file), /words\.json: \[placeholder\.words\.0\] words are written lower-case/);
  writeFileSync(file, JSON.stringify({ ...good, extra: { description: 'd', words: ['x'] } }));
  assert.throws(() => loadWordLists(file), /words\.json: /);
});
