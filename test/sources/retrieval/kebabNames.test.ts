// Kebab-case names (`wrap-params`, `valid-key?`): Clojure, Lisps, CSS and task
// runners join a name's words with hyphens. The question analysis takes them
// as names (a guess when bare, since English writes "built-in" the same way),
// and retrieval finds their Lisp definition forms and their uses.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { analyseText } from '../../../src/shared/question.ts';
import { definitionTest } from '../../../src/sources/retrieval/regions.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { askRetrieval, retrievalSource } from './ask.ts';

describe('kebab-case names', () => {
  test('backticked, a kebab-case name is a name; bare, a guessed one; a flag or a file is neither', () => {
    const named = (text: string) => analyseText(text).identifiers.map((id) => [id.term, id.guessed === true]);
    assert.deepEqual(named('Where is `wrap-params` defined?'), [['wrap-params', false]]);
    assert.deepEqual(named('Who calls wrap-params?'), [['wrap-params', true]]);
    assert.deepEqual(named('What does `valid-key?` check?')[0], ['valid-key?', false]);
    assert.deepEqual(named('Run it with --no-color and see my-file.ts'), []);
  });

  test('Lisp definition forms define a kebab-case name; a call or a longer name does not', () => {
    const defines = definitionTest(['wrap-params', 'valid-key?']);
    for (const line of [
      '(defn wrap-params',
      '(defn- wrap-params [handler]',
      '  (defun valid-key? (k)',
      '(define (wrap-params h)',
    ])
      assert.equal(defines(line) !== undefined, true, line);
    for (const line of ['(wrap-params handler)', '(defn wrap-params-x [h]', ';; see wrap-params'])
      assert.equal(defines(line), undefined, line);
  });

  describe('through retrieval', () => {
    let repo: TempRepo;
    const { source } = retrievalSource();
    const ask = (content: string) => askRetrieval(source, repo.dir, content);

    before(() => {
      const filler = Array.from({ length: 30 }, (_, i) => `(defn helper-${i} [x] (+ x ${i}))`).join('\n');
      repo = makeRepo({
        files: {
          'src/ring/middleware/params.clj': `(ns ring.middleware.params)\n\n${filler}\n\n(defn wrap-params\n  "Middleware to parse urlencoded parameters."\n  [handler]\n  (fn [request] (handler (assoc request :params {}))))\n`,
          'src/ring/app.clj':
            '(ns ring.app\n  (:require [ring.middleware.params :refer [wrap-params]]))\n\n(def app\n  (-> handler\n      (wrap-params)))\n',
          'test/ring/params_test.clj':
            '(ns ring.params-test)\n\n(deftest params-test\n  (let [h (wrap-params identity)]\n    (is (map? (h {})))))\n',
          'README.md': 'Ring has built-in middleware.\n',
        },
      });
    });
    after(() => repo.cleanup());

    test('"where is `wrap-params` defined": its defn form, past thirty other definitions', async () => {
      assert.match(await ask('Where is `wrap-params` defined?'), /\(defn wrap-params/);
    });

    test('"who calls wrap-params", bare: the lines that use it', async () => {
      const text = await ask('Who calls wrap-params?');
      assert.match(text, /\(wrap-params\)\)\)|\(wrap-params identity\)/);
    });
  });
});
