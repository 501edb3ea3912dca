// Relation questions ("which classes implement X", "where do we create new X objects") on a real git
// repository, in the shapes languages beyond Java and C# write them: Kotlin's `private inner class`,
// `data class` and a header whose supertypes follow the parameters' closing line, Swift's `extension`,
// Scala's `case class … with X`, Dart's `base class`; and constructions of a name the question says in a
// sentence (`Error`), which the question's own words ("create new … objects") must not turn into another name.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ContextItem } from '../../../src/shared/types.ts';
import { makeRepo, type TempRepo } from '../../support/gitRepo.ts';
import { retrievalItems, retrievalSource } from './ask.ts';

const SUBTYPES: Record<string, string> = {
  'core/Await.kt':
    'package app\n\n// filler\nprivate inner class DisposeAll(private val nodes: Array<Node>) : Handler {\n    override fun invoke() {}\n}\n',
  'core/Select.kt': 'package app\n\nclass SelectImpl<R>(\n    val context: Context,\n) : Handler, Builder<R> {\n}\n',
  'core/Event.kt': 'package app\n\n@Suppress("unused")\ndata class Event(val id: Int) : Handler\n',
  'ios/Sources/Session.swift': 'import Foundation\n\nextension Session: Handler {\n    func invoke() {}\n}\n',
  'jvm/src/Timeout.scala': 'package app\n\ncase class Timeout(ms: Int) extends Base\n    with Handler\n',
  'dart/lib/impl.dart': "import 'base.dart';\n\nbase class Impl implements Handler {\n}\n",
};

/** Files that only mention the interface (a parameter, a field, a comment): more hits than the subtypes. */
const mentions = (n: number) =>
  `package app\n\n// Handler ${n}: see the docs\nfun register${n}(handler: Handler) = handlers.add(handler)\nval fallback${n}: Handler? = null\n`;

/** Files that call a method named like the type (`err.Error()`), which is no construction. */
const errorCalls = (n: number) =>
  `package cmd\n\nfunc report${n}(err error) {\n\tlog(err.Error())\n\tfail(strings.Contains(err.Error(), "x"))\n}\n`;

describe('retrieval: subtypes and constructions in the shapes of more languages', () => {
  let repo: TempRepo;
  const { source } = retrievalSource();
  const ask = (content: string): Promise<ContextItem[]> => retrievalItems(source, repo.dir, content);
  const listing = (items: ContextItem[]) => items.find((item) => item.key === 'retrieval.code.(related lines)');

  before(() => {
    repo = makeRepo({
      files: {
        'core/Handler.kt': 'package app\n\ninterface Handler {\n    fun invoke()\n}\n',
        ...SUBTYPES,
        ...Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [`core/uses/Use${n}.kt`, mentions(n)])),
        // A type named by a common word, made in three languages' shapes, and a helper whose name holds the
        // question's words ("new", "error") that is not what is asked.
        'tpl/error.go':
          'package tpl\n\ntype Error struct{ k int }\n\nfunc errorf(k int) *Error {\n\treturn &Error{k}\n}\n',
        'tpl/escape.go': 'package tpl\n\nfunc escape() {\n\terr = &Error{ErrEnd}\n}\n',
        'web/main.js': 'export function check(x) {\n  if (!x) throw new Error("bad input");\n}\n',
        'py/models.py': 'def load(x):\n    if not x:\n        raise Error("empty payload")\n',
        'common/errors.go':
          'package common\n\nfunc newErrorWithCause(err error) error {\n\treturn err\n}\n\nfunc wrap(err error) error {\n\treturn newErrorWithCause(err)\n}\n',
        ...Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [`cmd/report${n}.go`, errorCalls(n)])),
      },
    });
  });
  after(() => repo.cleanup());

  test('every subtype declaration is listed, whatever modifiers and line breaks its language writes', async () => {
    const list = listing(await ask('Which classes extend or implement Handler?'));
    assert.ok(list, 'a listing of the related lines');
    for (const line of [
      'private inner class DisposeAll(private val nodes: Array<Node>) : Handler {',
      ') : Handler, Builder<R> {',
      'data class Event(val id: Int) : Handler',
      'extension Session: Handler {',
      'with Handler',
      'base class Impl implements Handler {',
    ]) {
      assert.ok(list.text.includes(line), `listed: ${line}\n${list.text}`);
    }
  });

  test('constructions of a name said in a sentence are listed before calls of a method of that name', async () => {
    const items = await ask('Where do we create new Error objects?');
    const list = listing(items);
    assert.ok(list, 'a listing of the related lines');
    const made = [
      'return &Error{k}',
      'err = &Error{ErrEnd}',
      'throw new Error("bad input")',
      'raise Error("empty payload")',
    ];
    for (const line of made) assert.ok(list.text.includes(line), `listed: ${line}\n${list.text}`);
    const lastMade = Math.max(...made.map((line) => list.text.indexOf(line)));
    const firstCall = list.text.indexOf('err.Error()');
    assert.ok(firstCall === -1 || firstCall > lastMade, `constructions first:\n${list.text}`);
    // "new" and "error" are the question's words, not the helper's name.
    assert.ok(
      items.every((item) => !item.why?.includes('newErrorWithCause')),
      items.map((item) => item.why).join('\n'),
    );
  });
});
